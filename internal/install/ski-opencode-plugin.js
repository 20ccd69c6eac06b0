// ski (skill-inject) for opencode: on each user message, ranks the installed
// skills locally and adds a note telling the model which skill to load; and
// gives the model two tools, skill_search and skill_load, served by ski-mcp.
// Installed by ski-install; removed by ski-install --uninstall.
// Fail-open: any problem leaves the message as it was.
// ski-install-marker
import { spawn } from "node:child_process"

const HOOK = __SKI_HOOK__
const TOOLS = __SKI_TOOLS__
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

// mcpServer is ski-mcp, started by the hook script on the first tool call
// and kept for the next ones; it speaks JSON-RPC 2.0, one message a line.
// A server that ended or stopped answering is started again next time.
function mcpServer(cwd) {
  const child = spawn("sh", [HOOK, "mcp"], { cwd, stdio: ["pipe", "pipe", "ignore"] })
  const pending = new Map()
  let buf = ""
  let next = 1
  let alive = true
  const settle = (id, msg) => {
    const done = pending.get(id)
    if (done) { pending.delete(id); done(msg) }
  }
  const end = () => {
    alive = false
    for (const id of [...pending.keys()]) settle(id, { error: { message: "ski-mcp ended" } })
  }
  child.on("exit", end)
  child.on("error", end)
  child.stdin.on("error", () => {})
  child.stdout.on("data", (d) => {
    buf += d
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      try { const msg = JSON.parse(line); if (msg.id !== undefined) settle(msg.id, msg) } catch {}
    }
  })
  const send = (msg) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n")
  const request = (method, params) => new Promise((resolve) => {
    if (!alive) return resolve({ error: { message: "ski-mcp ended" } })
    const id = next++
    const timer = setTimeout(() => { alive = false; child.kill("SIGKILL"); settle(id, { error: { message: "ski-mcp did not answer in time" } }) }, TIMEOUT_MS)
    pending.set(id, (msg) => { clearTimeout(timer); resolve(msg) })
    send({ id, method, params })
  })
  const ready = request("initialize", {
    protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "ski-opencode-plugin", version: "1" },
  }).then((r) => { if (!r.error) send({ method: "notifications/initialized" }); return r })
  return {
    alive: () => alive,
    stop: () => { alive = false; child.kill() },
    // call runs a tool and resolves to the text of its result.
    call: async (name, args) => {
      const init = await ready
      const r = init.error ? init : await request("tools/call", { name, arguments: args })
      if (r.error) return `ski: ${name} failed: ${r.error.message}`
      return (r.result?.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n")
    },
  }
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

// tools are skill_search and skill_load as opencode takes them, with
// argument schemas from @opencode-ai/plugin (opencode installs it beside
// its plugins); without it the plugin offers no tools.
async function tools(call) {
  let z
  try {
    z = (await import("@opencode-ai/plugin")).tool.schema
  } catch {
    return {}
  }
  const search = TOOLS.skill_search
  const load = TOOLS.skill_load
  return {
    skill_search: {
      description: search.description,
      args: {
        query: z.string().describe(search.args.query),
        limit: z.number().int().min(1).max(search.maxLimit).optional().describe(search.args.limit),
      },
      execute: (args) => call("skill_search", args),
    },
    skill_load: {
      description: load.description,
      args: { name: z.string().describe(load.args.name) },
      execute: (args) => call("skill_load", args),
    },
  }
}

export const SkiPlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd()
  let server = null
  const call = (name, args) => {
    if (!server || !server.alive()) server = mcpServer(cwd)
    return server.call(name, args)
  }
  return {
    tool: await tools(call),
    dispose: async () => { server?.stop() },
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
    // The skills the model loads (the skill tool, a read of a SKILL.md,
    // skill_load) and what skill_search found go to the session's ledger;
    // a skill_load of a skill the session already has gets a short note
    // in place of its body.
    "tool.execute.after": async (input, output) => {
      try {
        const ours = input.tool === "skill_search" || input.tool === "skill_load"
        if (input.tool !== "skill" && input.tool !== "read" && !ours) return
        const payload = { session_id: input.sessionID, cwd, tool: input.tool, args: input.args }
        if (input.tool === "skill_search") payload.output = output?.output
        const res = await run("observe", payload)
        if (ours && output && res.trim()) {
          const { output: note } = JSON.parse(res)
          if (typeof note === "string") output.output = note
        }
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
