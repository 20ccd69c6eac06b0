package ledger

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/skilltool"
)

// Observation is a skill load a host payload reports: the model read a
// SKILL.md (Path) or called the host's skill tool or ski's skill_load
// (Skill), or it searched with skill_search (Tool, Found).
type Observation struct {
	Session string
	Cwd     string // the project directory; "" when the payload has none
	Path    string // the SKILL.md read, absolute and cleaned; or ""
	Skill   string // the name the skill was invoked by; or ""
	// Tool is skilltool.Load or skilltool.Search for ski's own tools, else "".
	Tool string
	// Found are the names a skill_search returned, best first.
	Found []string
}

// ParseObservation reads one host payload: Claude Code's PostToolUse
// ({"session_id", "cwd", "tool_name", "tool_input", ...}) or the opencode
// plugin's tool.execute.after ({"session_id", "cwd"?, "tool", "args"}).
// ok is false for payloads that load no skill (other tools, files not named
// SKILL.md); those are not checked further.
//
// The path in a payload is only ever compared with catalog paths, never
// opened.
func ParseObservation(host string, payload []byte) (obs Observation, ok bool, err error) {
	switch host {
	case record.HostClaude:
		var p struct {
			SessionID string          `json:"session_id"`
			Cwd       string          `json:"cwd"`
			ToolName  string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
		}
		if err := json.Unmarshal(payload, &p); err != nil {
			return obs, false, fmt.Errorf("decode payload: %w", err)
		}
		obs = Observation{Session: p.SessionID, Cwd: p.Cwd}
		var in struct {
			FilePath string `json:"file_path"`
			Skill    string `json:"skill"`
			Name     string `json:"name"`
		}
		if obs.Tool = skilltool.ToolOf(p.ToolName); obs.Tool != "" {
			if err := decodeArgs(p.ToolInput, &in); err != nil {
				return obs, false, fmt.Errorf("decode tool_input: %w", err)
			}
			return toolObservation(obs, in.Name, gjson.GetBytes(payload, "tool_response"))
		}
		switch p.ToolName {
		case "Read", "Skill":
			if err := decodeArgs(p.ToolInput, &in); err != nil {
				return obs, false, fmt.Errorf("decode tool_input: %w", err)
			}
		default:
			return obs, false, nil
		}
		obs.Path, obs.Skill = in.FilePath, in.Skill
	case record.HostOpencode:
		var p struct {
			SessionID  string          `json:"session_id"`
			SessionID2 string          `json:"sessionID"`
			Cwd        string          `json:"cwd"`
			Tool       string          `json:"tool"`
			Args       json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(payload, &p); err != nil {
			return obs, false, fmt.Errorf("decode payload: %w", err)
		}
		obs = Observation{Session: cmp.Or(p.SessionID, p.SessionID2), Cwd: p.Cwd}
		var args struct {
			FilePath string `json:"filePath"`
			Name     string `json:"name"`
		}
		if obs.Tool = skilltool.ToolOf(p.Tool); obs.Tool != "" {
			if err := decodeArgs(p.Args, &args); err != nil {
				return obs, false, fmt.Errorf("decode args: %w", err)
			}
			return toolObservation(obs, args.Name, gjson.GetBytes(payload, "output"))
		}
		switch p.Tool {
		case "read", "skill":
			if err := decodeArgs(p.Args, &args); err != nil {
				return obs, false, fmt.Errorf("decode args: %w", err)
			}
		default:
			return obs, false, nil
		}
		if p.Tool == "read" {
			obs.Path = args.FilePath
		} else {
			obs.Skill = args.Name
		}
	default:
		return obs, false, fmt.Errorf("unknown host %q, want %q or %q", host, record.HostClaude, record.HostOpencode)
	}
	obs.Skill = strings.TrimSpace(obs.Skill)
	if obs.Path != "" {
		if filepath.Base(obs.Path) != "SKILL.md" {
			obs.Path = ""
		} else if !filepath.IsAbs(obs.Path) {
			if !filepath.IsAbs(obs.Cwd) {
				obs.Path = "" // nothing to resolve it against
			} else {
				obs.Path = filepath.Join(obs.Cwd, obs.Path)
			}
		} else {
			obs.Path = filepath.Clean(obs.Path)
		}
	}
	if obs.Path == "" && obs.Skill == "" {
		return obs, false, nil
	}
	if obs.Session == "" {
		return obs, false, errors.New("payload has no session_id")
	}
	return obs, true, nil
}

// toolObservation completes the observation of a call of ski's own tools:
// the name skill_load was given, or the names skill_search returned (read
// from its result, whatever shape the host gives it in).
func toolObservation(obs Observation, name string, result gjson.Result) (Observation, bool, error) {
	if obs.Tool == skilltool.Load {
		obs.Skill = strings.TrimSpace(name)
		if obs.Skill == "" {
			return obs, false, nil
		}
	} else {
		var text strings.Builder
		eachString(result, func(s string) { text.WriteString(s + "\n") })
		obs.Found = skilltool.HitNames(text.String())
	}
	if obs.Session == "" {
		return obs, false, errors.New("payload has no session_id")
	}
	return obs, true, nil
}

// eachString calls f with every string in v, in order.
func eachString(v gjson.Result, f func(string)) {
	switch {
	case v.Type == gjson.String:
		f(v.Str)
	case v.IsArray() || v.IsObject():
		v.ForEach(func(_, x gjson.Result) bool {
			eachString(x, f)
			return true
		})
	}
}

func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// Match finds the skill obs refers to in a host's catalog. A path matches
// a skill whose SKILL.md is the same file after resolving symbolic links;
// a skill name matches Invoke ("plugin:name" or name) first, then Name, in
// catalog order. A SKILL.md or name not in the catalog matches nothing.
func Match(skills []record.Skill, obs Observation) (record.Skill, bool) {
	if obs.Path != "" {
		want := canonical(obs.Path)
		for _, sk := range skills {
			if sk.Path == "" {
				continue
			}
			if sk.Path == obs.Path || sk.Path == want || canonical(sk.Path) == want {
				return sk, true
			}
		}
		return record.Skill{}, false
	}
	if obs.Skill == "" {
		return record.Skill{}, false
	}
	for _, sk := range skills {
		if sk.Invoke == obs.Skill || obs.Tool == skilltool.Load && sk.ID == obs.Skill {
			return sk, true
		}
	}
	for _, sk := range skills {
		if sk.Name == obs.Skill {
			return sk, true
		}
	}
	return record.Skill{}, false
}

// canonical resolves symbolic links in path (it does not open the file);
// a path that cannot be resolved is only cleaned.
func canonical(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return filepath.Clean(path)
}

// ObserveOptions configure Observe.
type ObserveOptions struct {
	Host string // record.HostClaude or record.HostOpencode
	// Catalog lists the skills the host sees when run in cwd ("" when the
	// payload names no directory). Observe calls it once per directory,
	// and only for payloads that load a skill.
	Catalog func(cwd string) ([]record.Skill, error)
	// Repeat, when set, is told of a skill_load of a skill whose
	// instructions the session already had (Ledger.HasBody), before the
	// load is recorded.
	Repeat func(obs Observation, sk record.Skill)
}

// Observe reads host tool payloads, one per line, and marks each skill the
// model loaded itself (source model), with one Update per session. Payloads
// for other tools, and SKILL.md files or names not in the catalog, are
// ignored. It returns the marks it applied.
func Observe(s *Store, in Input, opts ObserveOptions) ([]Mark, error) {
	catalogs := make(map[string][]record.Skill)
	return s.markEach(in, func(r *ndjson.Reader, line []byte) (*Mark, error) {
		obs, ok, err := ParseObservation(opts.Host, line)
		if err != nil {
			return nil, r.Errorf("%w", err)
		}
		if !ok {
			return nil, nil
		}
		skills, seen := catalogs[obs.Cwd]
		if !seen {
			skills, err = opts.Catalog(obs.Cwd)
			if err != nil {
				return nil, r.Errorf("list skills: %w", err)
			}
			catalogs[obs.Cwd] = skills
		}
		if obs.Tool == skilltool.Search {
			var ids []string
			for _, name := range obs.Found {
				if sk, ok := Match(skills, Observation{Skill: name}); ok {
					ids = append(ids, sk.ID)
				}
			}
			return &Mark{Session: obs.Session, Event: EventSearch, Found: ids}, nil
		}
		sk, ok := Match(skills, obs)
		if !ok {
			return nil, nil
		}
		m := &Mark{Session: obs.Session, Event: EventLoad, ID: sk.ID}
		if obs.Tool == skilltool.Load {
			m.Source = SourceTool
			if l, err := s.Load(obs.Session); err == nil && l.HasBody(sk.ID) && opts.Repeat != nil {
				opts.Repeat(obs, sk)
			}
		}
		return m, nil
	})
}
