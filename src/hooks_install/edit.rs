//! The edits themselves: bringing an agent's hook configuration to what
//! signaltty wants in it, touching nothing else.
//!
//! An entry is signaltty's when its command runs signaltty's [`marker`]
//! (`ctl hook claude`), whoever wrote it and whichever way it names the
//! binary — so hooks wired by hand from the README, and those an older
//! signaltty wrote as plain `signaltty ctl hook`, are recognised (and
//! replaced) too. Installing leaves exactly one such entry per
//! event the kind's data file lists, with the current command, and none
//! for other events; uninstalling removes them all. Lists and objects that
//! only held signaltty's entries go with them; everything else stays as it
//! was, in its order.

use thiserror::Error;

use super::json::Json;

/// What makes an entry signaltty's, with the word `signaltty` before it.
pub fn marker(kind: &str) -> String {
    format!(" ctl hook {kind} ")
}

/// How a hook names the binary: the one whose server runs the pane
/// (`SIGNALTTY_BIN`, which every pane gets), so the hook works whatever
/// `PATH` the agent has — under systemd it lacks `~/.cargo/bin` — and
/// follows the binary where it moves; `signaltty` on `PATH` elsewhere.
const BINARY: &str = "\"${SIGNALTTY_BIN:-signaltty}\"";

/// The command a hook runs for `event`: nothing outside a signaltty pane.
pub fn hook_command(kind: &str, event: &str) -> String {
    format!("[ -z \"$SIGNALTTY_PANE\" ] || {BINARY} ctl hook {kind} {event}")
}

/// codex's `notify` program: it passes the event's JSON as the last
/// argument, which `ctl hook` reads on stdin.
pub fn codex_notify() -> Vec<String> {
    let script = format!(
        "[ -z \"$SIGNALTTY_PANE\" ] || printf '%s' \"$1\" | {BINARY} ctl hook codex notify"
    );
    ["sh", "-c", &script, "signaltty-notify"]
        .map(String::from)
        .to_vec()
}

/// A configuration whose shape is not one an edit can be made in safely.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ShapeError {
    #[error("its top level is not a JSON object")]
    NotAnObject,
    #[error("its \"{0}\" is not an object")]
    NotAnObjectAt(String),
    #[error("its \"hooks\".\"{0}\" is not a list")]
    NotAList(String),
    #[error(
        "it already has a notify program ({0}); signaltty will not replace it — run both from one script (see the README)"
    )]
    NotifyTaken(String),
}

/// The two JSON layouts: where an event's entries are, and what an entry
/// is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `hooks.EVENT: [{"hooks": [{"type": "command", "command": C}]}]`.
    Grouped,
    /// `hooks.EVENT: [{"type": "command", "bash": C}]`, in a
    /// `{"version": 1, …}` file.
    Flat,
}

impl Layout {
    fn command_key(self) -> &'static str {
        match self {
            Layout::Grouped => "command",
            Layout::Flat => "bash",
        }
    }

    fn entry(self, command: &str) -> Json {
        let entry = Json::object(&[
            ("type", Json::string("command")),
            (self.command_key(), Json::string(command)),
        ]);
        match self {
            Layout::Grouped => Json::object(&[("hooks", Json::Array(vec![entry]))]),
            Layout::Flat => entry,
        }
    }
}

/// Brings `root`'s hooks to `wanted` (event, command) pairs — none to
/// uninstall. Returns whether anything changed.
pub fn apply_json(
    root: &mut Json,
    layout: Layout,
    marker: &str,
    wanted: &[(String, String)],
) -> Result<bool, ShapeError> {
    let Json::Object(top) = root else {
        return Err(ShapeError::NotAnObject);
    };
    let mut changed = false;
    if layout == Layout::Flat && !wanted.is_empty() && !top.iter().any(|(k, _)| k == "version") {
        top.insert(0, ("version".into(), Json::Number(1.into())));
        changed = true;
    }
    let at = match top.iter().position(|(k, _)| k == "hooks") {
        Some(at) => at,
        None if wanted.is_empty() => return Ok(changed),
        None => {
            top.push(("hooks".into(), Json::Object(Vec::new())));
            top.len() - 1
        }
    };
    let Json::Object(events) = &mut top[at].1 else {
        return Err(ShapeError::NotAnObjectAt("hooks".into()));
    };
    changed |= prune_events(events, layout, marker, wanted)?;
    for (event, command) in wanted {
        let has_it = events
            .iter()
            .find(|(k, _)| k == event)
            .is_some_and(|(_, list)| holds(list, layout, command));
        if has_it {
            continue;
        }
        let entry = layout.entry(command);
        match events.iter_mut().find(|(k, _)| k == event) {
            Some((_, Json::Array(list))) => list.push(entry),
            Some(_) => return Err(ShapeError::NotAList(event.clone())),
            None => events.push((event.clone(), Json::Array(vec![entry]))),
        }
        changed = true;
    }
    if events.is_empty() && changed {
        top.remove(at);
    }
    Ok(changed)
}

/// Removes signaltty's entries that are not wanted (or not the first of
/// their event), and the lists and groups that held nothing else.
fn prune_events(
    events: &mut Vec<(String, Json)>,
    layout: Layout,
    marker: &str,
    wanted: &[(String, String)],
) -> Result<bool, ShapeError> {
    let mut changed = false;
    let mut emptied = Vec::new();
    for (event, list) in events.iter_mut() {
        let Json::Array(items) = list else {
            // Not a list, and so holding nothing of signaltty's: another
            // program's business, unless signaltty must add to it.
            if wanted.iter().any(|(e, _)| e == event) {
                return Err(ShapeError::NotAList(event.clone()));
            }
            continue;
        };
        let keep = wanted
            .iter()
            .find(|(e, _)| e == event)
            .map(|(_, c)| c.as_str());
        let mut kept_one = false;
        let before = items.len();
        let removed = match layout {
            Layout::Flat => prune_entries(items, "bash", marker, keep, &mut kept_one),
            Layout::Grouped => {
                let mut removed = false;
                items.retain_mut(|group| {
                    let Some(Json::Array(entries)) = group_hooks(group) else {
                        return true;
                    };
                    if !prune_entries(entries, "command", marker, keep, &mut kept_one) {
                        return true;
                    }
                    removed = true;
                    !entries.is_empty()
                });
                removed
            }
        };
        changed |= removed;
        if removed && items.is_empty() && before > 0 {
            emptied.push(event.clone());
        }
    }
    events.retain(|(event, _)| !emptied.contains(event));
    Ok(changed)
}

fn group_hooks(group: &mut Json) -> Option<&mut Json> {
    match group {
        Json::Object(pairs) => pairs.iter_mut().find(|(k, _)| k == "hooks").map(|(_, v)| v),
        _ => None,
    }
}

/// Removes the entries of `entries` that are signaltty's, except the first
/// whose command is `keep`. Returns whether any went.
fn prune_entries(
    entries: &mut Vec<Json>,
    key: &str,
    marker: &str,
    keep: Option<&str>,
    kept_one: &mut bool,
) -> bool {
    let before = entries.len();
    entries.retain(|entry| {
        let Some(command) = entry.get(key).and_then(Json::as_str) else {
            return true;
        };
        if !is_ours(command, marker) {
            return true;
        }
        if keep == Some(command) && !*kept_one {
            *kept_one = true;
            return true;
        }
        false
    });
    entries.len() != before
}

fn is_ours(command: &str, marker: &str) -> bool {
    command
        .find(marker)
        .is_some_and(|at| command[..at].contains("signaltty"))
}

/// Whether an event's list already runs `command`.
fn holds(list: &Json, layout: Layout, command: &str) -> bool {
    let Json::Array(items) = list else {
        return false;
    };
    let runs =
        |entry: &Json| entry.get(layout.command_key()).and_then(Json::as_str) == Some(command);
    match layout {
        Layout::Flat => items.iter().any(runs),
        Layout::Grouped => items.iter().any(|group| match group.get("hooks") {
            Some(Json::Array(entries)) => entries.iter().any(runs),
            _ => false,
        }),
    }
}

/// Brings codex's top-level `notify` to `wanted` (`None` to uninstall).
/// Returns whether anything changed.
pub fn apply_notify(
    doc: &mut toml_edit::DocumentMut,
    marker: &str,
    wanted: Option<&[String]>,
) -> Result<bool, ShapeError> {
    let current: Option<Vec<String>> = doc.get("notify").map(|item| {
        item.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    });
    let ours = current
        .as_ref()
        .is_some_and(|words| words.iter().any(|w| is_ours(w, marker)));
    match (current, wanted) {
        (Some(words), Some(wanted)) if ours && words.as_slice() == wanted => Ok(false),
        (Some(_), Some(_)) if !ours => {
            let shown = doc
                .get("notify")
                .map(|item| item.to_string().trim().to_string())
                .unwrap_or_default();
            Err(ShapeError::NotifyTaken(shown))
        }
        (_, Some(wanted)) => {
            let array: toml_edit::Array = wanted.iter().map(String::as_str).collect();
            doc["notify"] = toml_edit::value(array);
            Ok(true)
        }
        (Some(_), None) if ours => {
            doc.remove("notify");
            Ok(true)
        }
        (_, None) => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::super::json::{parse, to_text};
    use super::*;

    fn wanted(kind: &str, events: &[&str]) -> Vec<(String, String)> {
        events
            .iter()
            .map(|e| ((*e).to_string(), hook_command(kind, e)))
            .collect()
    }

    fn edit(text: &str, layout: Layout, events: &[&str]) -> Result<(String, bool), ShapeError> {
        let mut root = parse(text).unwrap();
        let changed = apply_json(
            &mut root,
            layout,
            &marker("claude"),
            &wanted("claude", events),
        )?;
        Ok((to_text(&root, text).unwrap(), changed))
    }

    #[test]
    fn install_adds_an_entry_per_event_and_keeps_the_rest_in_order() {
        let text = r#"{
  "model": "opus",
  "hooks": {
    "Stop": [{ "matcher": "", "hooks": [{ "type": "command", "command": "say done" }] }]
  },
  "z": 1
}
"#;
        let (out, changed) = edit(text, Layout::Grouped, &["Stop", "Notification"]).unwrap();
        assert!(changed);
        let value = parse(&out).unwrap();
        let Json::Object(top) = &value else { panic!() };
        let keys: Vec<&str> = top.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["model", "hooks", "z"]);
        let stop = value.get("hooks").unwrap().get("Stop").unwrap();
        let Json::Array(groups) = stop else { panic!() };
        assert_eq!(groups.len(), 2, "{out}");
        assert_eq!(
            groups[0].get("hooks").unwrap(),
            &Json::Array(vec![Json::object(&[
                ("type", Json::string("command")),
                ("command", Json::string("say done")),
            ])])
        );
        let notification = serde_json::to_string(&hook_command("claude", "Notification")).unwrap();
        assert!(out.contains(&notification), "{out}");
        // A second install changes nothing.
        let (again, changed) = edit(&out, Layout::Grouped, &["Stop", "Notification"]).unwrap();
        assert!(!changed);
        assert_eq!(again, out);
    }

    #[test]
    fn uninstall_removes_exactly_what_install_added() {
        let text = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"say done\"\n          }\n        ]\n      }\n    ]\n  },\n  \"model\": \"opus\"\n}\n";
        let (installed, _) = edit(text, Layout::Grouped, &["Stop", "SessionEnd"]).unwrap();
        let (removed, changed) = edit(&installed, Layout::Grouped, &[]).unwrap();
        assert!(changed);
        assert_eq!(removed, text);
        let (bare, _) = edit("{}", Layout::Grouped, &["Stop"]).unwrap();
        assert_eq!(edit(&bare, Layout::Grouped, &[]).unwrap().0, "{}\n");
    }

    #[test]
    fn an_entry_is_ours_however_it_names_the_binary() {
        let marker = marker("claude");
        for ours in [
            hook_command("claude", "Stop"),
            "[ -z \"$SIGNALTTY_PANE\" ] || signaltty ctl hook claude Stop".to_string(),
            "/home/me/.cargo/bin/signaltty ctl hook claude Stop".to_string(),
        ] {
            assert!(is_ours(&ours, &marker), "{ours}");
        }
        for theirs in [
            "othertool ctl hook claude Stop",
            "signaltty ctl hook gemini Stop",
            "ctl hook claude Stop # signaltty",
        ] {
            assert!(!is_ours(theirs, &marker), "{theirs}");
        }
    }

    #[test]
    fn a_stale_or_doubled_entry_of_ours_is_replaced_by_one_current_one() {
        let old = format!(
            r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "/old/signaltty ctl hook claude Stop"}}]}}],
                "Bogus": [{{"hooks": [{{"type": "command", "command": "signaltty ctl hook claude Bogus"}}]}}],
                "SessionEnd": [{{"hooks": [{{"type": "command", "command": "{c}"}}, {{"type": "command", "command": "{c}"}}]}}]}}}}"#,
            c = hook_command("claude", "SessionEnd").replace('"', "\\\"")
        );
        let (out, changed) = edit(&old, Layout::Grouped, &["Stop", "SessionEnd"]).unwrap();
        assert!(changed);
        assert!(!out.contains("/old/") && !out.contains("Bogus"), "{out}");
        assert_eq!(
            out.matches("ctl hook claude SessionEnd").count(),
            1,
            "{out}"
        );
        assert_eq!(out.matches("ctl hook claude Stop").count(), 1, "{out}");
    }

    #[test]
    fn shapes_it_cannot_edit_are_errors_and_other_kinds_are_left_alone() {
        assert_eq!(
            edit("[]", Layout::Grouped, &["Stop"]),
            Err(ShapeError::NotAnObject)
        );
        assert_eq!(
            edit(r#"{"hooks": []}"#, Layout::Grouped, &["Stop"]),
            Err(ShapeError::NotAnObjectAt("hooks".into()))
        );
        assert_eq!(
            edit(r#"{"hooks": {"Stop": "x"}}"#, Layout::Grouped, &["Stop"]),
            Err(ShapeError::NotAList("Stop".into()))
        );
        let other = format!(
            r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "{}"}}]}}]}}}}"#,
            hook_command("qwen", "Stop").replace('"', "\\\"")
        );
        let (out, changed) = edit(&other, Layout::Grouped, &[]).unwrap();
        assert!(!changed, "{out}");
    }

    #[test]
    fn the_flat_layout_gets_a_version_and_bash_entries() {
        let (out, _) = edit("", Layout::Flat, &["sessionStart"]).unwrap();
        let value = parse(&out).unwrap();
        assert_eq!(value.get("version"), Some(&Json::Number(1.into())));
        let Some(Json::Array(list)) = value.get("hooks").unwrap().get("sessionStart") else {
            panic!("{out}")
        };
        assert_eq!(
            list[0].get("bash").and_then(Json::as_str),
            Some(hook_command("claude", "sessionStart").as_str())
        );
        assert_eq!(
            edit(&out, Layout::Flat, &[]).unwrap().0,
            "{\n  \"version\": 1\n}\n"
        );
    }

    fn notify(text: &str, wanted: Option<&[String]>) -> Result<(String, bool), ShapeError> {
        let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
        let changed = apply_notify(&mut doc, &marker("codex"), wanted)?;
        Ok((doc.to_string(), changed))
    }

    #[test]
    fn codex_notify_goes_in_at_the_top_level_keeping_comments() {
        let text = "# my config\nmodel = \"o3\" # the best\n\n[profiles.work]\nmodel = \"o4\"\n";
        let program = codex_notify();
        let (out, changed) = notify(text, Some(&program)).unwrap();
        assert!(changed);
        assert!(
            out.starts_with("# my config\nmodel = \"o3\" # the best\n"),
            "{out}"
        );
        let parsed: toml::Table = toml::from_str(&out).unwrap();
        let words: Vec<&str> = parsed["notify"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(words, program);
        assert_eq!(parsed["profiles"]["work"]["model"].as_str(), Some("o4"));
        assert_eq!(notify(&out, Some(&program)).unwrap(), (out.clone(), false));
        assert_eq!(notify(&out, None).unwrap(), (text.to_string(), true));
        assert_eq!(notify(text, None).unwrap(), (text.to_string(), false));
    }

    #[test]
    fn someone_elses_notify_is_never_replaced() {
        let text = "notify = [\"notify-send\", \"codex\"]\n";
        let err = notify(text, Some(&codex_notify())).unwrap_err();
        assert!(err.to_string().contains("notify-send"), "{err}");
        assert_eq!(notify(text, None).unwrap(), (text.to_string(), false));
    }
}
