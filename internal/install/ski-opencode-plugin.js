// ski (skill-inject) for opencode: on each user message, ranks the installed
// skills locally and adds a note telling the model which skill to load.
// Installed by ski-install; removed by ski-install --uninstall.
// Fail-open: any problem leaves the message as it was.
// ski-install-marker
import { spawn } from "node:child_process"

const HOOK = __SKI_HOOK__
const TIMEOUT_MS = 10000

// run feeds one JSON payload to the hook script and resolves to its stdout,
// or "" on any failure or timeout.
function run(mode, payload) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = (value) => { if (!done) { done = true; resolve(value) } }
    try {
      // sh runs the script directly (dash on Debian and Ubuntu, quicker
      // to start than bash).
      const child = spawn("sh", [HOOK, mode], { stdio: ["pipe", "pipe", "ignore"] })
      const timer = setTimeout(() => { child.kill("SIGKILL"); finish("") }, TIMEOUT_MS)
      child.stdout.on("data", (d) => { out += d })
      child.on("error", () => { clearTimeout(timer); finish("") })
      child.on("close", (code) => { clearTimeout(timer); finish(code === 0 ? out : "") })
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify(payload))
    } catch {
      finish("")
    }
  })
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// partID makes an id that sorts after the parts opencode created before it,
// in opencode's own shape: "prt_", time-ordered hex, random base62.
function partID() {
  const hex = (BigInt(Date.now()) * 0x1000n + 0xfffn).toString(16).padStart(12, "0").slice(-12)
  let rand = ""
  for (let i = 0; i < 14; i++) rand += BASE62[Math.floor(Math.random() * 62)]
  return "prt_" + hex + rand
}

export const SkiPlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd()
  return {
    "chat.message": async (input, output) => {
      try {
        const text = (output.parts || []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n")
        const sessionID = input.sessionID || output.message?.sessionID
        if (!text || !sessionID) return
        const res = await run("prompt", { session_id: sessionID, cwd, prompt: text })
        if (!res.trim()) return
        const { inject } = JSON.parse(res)
        if (!inject) return
        output.parts.push({
          id: partID(), sessionID, messageID: output.message?.id, type: "text", text: inject, synthetic: true,
        })
      } catch {}
    },
    "tool.execute.after": async (input) => {
      try {
        if (input.tool !== "skill" && input.tool !== "read") return
        await run("observe", { session_id: input.sessionID, cwd, tool: input.tool, args: input.args })
      } catch {}
    },
    event: async ({ event }) => {
      try {
        if (event?.type === "session.compacted") {
          await run("session-start", { session_id: event.properties?.sessionID, cwd, source: "compact" })
        } else if (event?.type === "session.created") {
          await run("session-start", { session_id: event.properties?.info?.id, cwd, source: "startup" })
        }
      } catch {}
    },
  }
}
