//! Reading and checking the agents' data files, once.
//!
//! Each kind's facts are one TOML file, `agents/<kind>.toml`, bundled into
//! the binary. They are parsed and checked the first time any kind is
//! looked at. A file that fails its checks never stops the server: its kind
//! is then known by name only (never detected, never resumed) and the
//! failure is reported through [`load_errors`]. The tests parse every
//! bundled file, so a bad one fails the build's tests instead of reaching a
//! user.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;
use signaltty_types::NewlineKey;

use crate::hook_config::{HookConfig, HookFormat, ProjectRoot};
use crate::hooks::{AgentActivity, AgentNeeds, HookEffect, HookRule};
use crate::kind::AgentKind;
use crate::kinds::{
    AdapterSpec, ArgTemplate, ExitRule, IdRule, ResumeKeeps, SessionStore, StoreFormat, StoreRoot,
};
use crate::rules::{RuleFile, Rules, RulesSource};

/// The bundled data file of `kind`; `None` for generic panes.
fn bundled(kind: AgentKind) -> Option<&'static str> {
    Some(match kind {
        AgentKind::Claude => include_str!("../agents/claude.toml"),
        AgentKind::Codex => include_str!("../agents/codex.toml"),
        AgentKind::Opencode => include_str!("../agents/opencode.toml"),
        AgentKind::Cursor => include_str!("../agents/cursor.toml"),
        AgentKind::Gemini => include_str!("../agents/gemini.toml"),
        AgentKind::Copilot => include_str!("../agents/copilot.toml"),
        AgentKind::Qwen => include_str!("../agents/qwen.toml"),
        AgentKind::Amp => include_str!("../agents/amp.toml"),
        AgentKind::Kiro => include_str!("../agents/kiro.toml"),
        AgentKind::Pi => include_str!("../agents/pi.toml"),
        AgentKind::Grok => include_str!("../agents/grok.toml"),
        AgentKind::Crush => include_str!("../agents/crush.toml"),
        AgentKind::Aider => include_str!("../agents/aider.toml"),
        AgentKind::Goose => include_str!("../agents/goose.toml"),
        AgentKind::Generic => return None,
    })
}

struct Loaded {
    /// One per kind, at `kind as usize`.
    specs: Vec<AdapterSpec>,
    errors: Vec<String>,
}

static LOADED: OnceLock<Loaded> = OnceLock::new();

fn loaded() -> &'static Loaded {
    LOADED.get_or_init(|| {
        let mut errors = Vec::new();
        let specs = AgentKind::ALL
            .into_iter()
            .map(|kind| {
                let Some(text) = bundled(kind) else {
                    return AdapterSpec::unknown(kind);
                };
                parse(kind, text).unwrap_or_else(|e| {
                    errors.push(format!(
                        "the bundled agents/{kind}.toml is broken, so {kind} is not recognised: {e}"
                    ));
                    AdapterSpec::unknown(kind)
                })
            })
            .collect();
        Loaded { specs, errors }
    })
}

/// `kind`'s facts.
pub(crate) fn spec(kind: AgentKind) -> &'static AdapterSpec {
    &loaded().specs[kind as usize]
}

/// What was wrong with the bundled data files (none, in a tested build).
pub(crate) fn load_errors() -> &'static [String] {
    &loaded().errors
}

/// A data file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentFile {
    name: String,
    program: String,
    /// The CLI version the facts were checked against, or why none was.
    #[allow(dead_code)] // for people
    checked_against: String,
    /// How they were checked: `--help`, a capture, published docs…
    #[allow(dead_code)] // for people
    checked_how: String,
    #[serde(default)]
    process_names: Vec<String>,
    #[serde(default)]
    package_markers: Vec<String>,
    id: IdText,
    #[serde(default)]
    launch: LaunchText,
    #[serde(default)]
    sessions: Option<StoreText>,
    #[serde(default, rename = "hook")]
    hooks: Vec<HookText>,
    #[serde(default)]
    hook_relay: Option<HookRelayText>,
    #[serde(default)]
    hook_config: Option<HookConfigText>,
    #[serde(default)]
    keys: Option<KeysText>,
    #[serde(default)]
    exit: Option<ExitText>,
    screen: RuleFile,
}

/// `[exit]`: how the agent ends a session of its own accord, so that it
/// saves the session before its process goes (hibernation types it).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExitText {
    /// What is typed into its input box, then Enter (`/exit`).
    command: String,
    /// A line of the screen that says its input box is empty: with text
    /// typed but not sent, the agent stays awake.
    empty_input: String,
    /// The version and how it was seen.
    #[allow(dead_code)] // for people
    checked: String,
}

/// `[keys]`: how its input box reads keys a plain terminal cannot send.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysText {
    /// What it reads as a new line when it asked for no keyboard protocol.
    newline: NewlineKey,
    /// The version and how it was seen.
    #[allow(dead_code)] // for people
    checked: String,
}

/// `[hook_relay]`: the agent runs one hook for all its events and names
/// the event in the payload's `type` (codex's `notify`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HookRelayText {
    /// The event word that hook is installed with (`ctl hook KIND EVENT`).
    event: String,
}

/// `[hook_config]`: where `signaltty hooks install` writes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HookConfigText {
    format: HookFormatText,
    /// The config directory under `$HOME`, unless one of `env` is set.
    home: String,
    #[serde(default)]
    env: Vec<EnvText>,
    /// The user's hook file, inside the config directory.
    user: String,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    project_root: Option<ProjectRootText>,
    /// The CLI version this was checked against, and how.
    #[allow(dead_code)] // for people
    checked: String,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum HookFormatText {
    SettingsHooks,
    CopilotHooks,
    CodexNotify,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum ProjectRootText {
    Cwd,
    GitRoot,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdText {
    rule: IdKindText,
    #[serde(default)]
    pattern: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum IdKindText {
    Uuid,
    Pattern,
    /// The agent has no session ids of its own: only stored and shown.
    None,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LaunchText {
    /// Absent: no official resume.
    #[serde(default)]
    resume: Option<Vec<String>>,
    #[serde(default)]
    preset: Option<Vec<String>>,
    #[serde(default)]
    session_flags: Vec<String>,
    #[serde(default)]
    hands_off_flags: Vec<String>,
    #[serde(default)]
    value_options: Vec<String>,
    #[serde(default)]
    subcommands: Vec<String>,
    #[serde(default)]
    resume_subcommand: Vec<String>,
    #[serde(default)]
    secret_flags: Vec<String>,
    #[serde(default)]
    resume_keeps: KeepsText,
}

/// `[launch.resume_keeps]`: the launch options a resume repeats.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeepsText {
    /// What these were checked against (each CLI's `--help`).
    #[allow(dead_code)] // for people
    #[serde(default)]
    checked: String,
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    lists: Vec<String>,
    #[serde(default)]
    switches: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreText {
    reader: ReaderText,
    home: String,
    #[serde(default)]
    env: Vec<EnvText>,
    /// What the layout was checked against.
    #[allow(dead_code)] // for people
    seen: String,
    #[serde(default)]
    files: Option<String>,
    #[serde(default)]
    id_field: Option<String>,
    #[serde(default)]
    cwd_field: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum ReaderText {
    PidFile,
    ProjectChats,
    DatedRollouts,
    SessionFiles,
    StateDirs,
    JsonlHeads,
    HashedChatDirs,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvText {
    name: String,
    #[serde(default)]
    suffix: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HookText {
    event: String,
    #[serde(default)]
    activity: Option<ActivityText>,
    #[serde(default)]
    needs: Option<NeedsText>,
    /// What the event means instead when its message says so, first
    /// match first.
    #[serde(default)]
    message: Vec<HookMessageText>,
}

/// `[[hook.message]]`: an event whose message holds `has` (any case)
/// means this instead, whole: what it leaves out, it leaves alone.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HookMessageText {
    has: String,
    #[serde(default)]
    activity: Option<ActivityText>,
    #[serde(default)]
    needs: Option<NeedsText>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ActivityText {
    Working,
    Blocked,
    Done,
    Idle,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum NeedsText {
    Nothing,
    Unread,
    Input,
    Permission,
    Error,
}

/// Parses and checks `kind`'s data file; the error says what is wrong.
pub(crate) fn parse(kind: AgentKind, text: &str) -> Result<AdapterSpec, String> {
    let file: AgentFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
    if file.name != kind.as_str() {
        return Err(format!("name is {:?}, not {:?}", file.name, kind.as_str()));
    }
    check_word("program", &file.program)?;
    let id_rule = id_rule(&file.id)?;
    let launch = file.launch;
    let resume = launch.resume.as_deref().map(template).transpose()?;
    let preset = launch.preset.as_deref().map(template).transpose()?;
    if (resume.is_some() || preset.is_some()) && matches!(id_rule, IdRule::Generic) {
        return Err("an id rule of \"none\" cannot go into a resume or preset command".into());
    }
    check_flags("session_flags", &launch.session_flags)?;
    check_flags("hands_off_flags", &launch.hands_off_flags)?;
    check_flags("value_options", &launch.value_options)?;
    check_flags("secret_flags", &launch.secret_flags)?;
    if let Some(flag) = launch
        .secret_flags
        .iter()
        .find(|f| f.starts_with("--") || f.len() != 2)
    {
        return Err(format!(
            "secret_flags: {flag:?} is not a short option like -k"
        ));
    }
    for word in launch.subcommands.iter().chain(&launch.resume_subcommand) {
        check_word("a subcommand", word)?;
    }
    for name in file.process_names.iter() {
        check_word("a process name", name)?;
    }
    if file.package_markers.iter().any(|m| m.len() < 3) {
        return Err("a package marker must be at least 3 characters".into());
    }
    let resume_keeps = resume_keeps(&launch, resume.as_ref())?;
    let hook_relay = file
        .hook_relay
        .map(|relay| hook_relay(relay, &file.hooks))
        .transpose()?;
    let hook_config = file
        .hook_config
        .map(|config| hook_config(config, !file.hooks.is_empty()))
        .transpose()?;
    let screen =
        Rules::compile(file.screen, RulesSource::Bundled).map_err(|e| format!("screen {e}"))?;
    Ok(AdapterSpec {
        kind,
        program: Some(file.program),
        id_rule,
        resume,
        preset,
        session_flags: launch.session_flags,
        hands_off_flags: launch.hands_off_flags,
        value_options: launch.value_options,
        subcommands: launch.subcommands,
        secret_flags: launch.secret_flags,
        resume_subcommand: launch.resume_subcommand,
        resume_keeps,
        hooks: file.hooks.into_iter().map(hook_rule).collect(),
        hook_relay,
        hook_config,
        process_names: file.process_names,
        package_markers: file.package_markers,
        screen: Some(screen),
        sessions: file.sessions.map(store).transpose()?,
        newline_key: file.keys.map(|keys| keys.newline),
        exit: file.exit.map(exit_rule).transpose()?,
    })
}

fn exit_rule(text: ExitText) -> Result<ExitRule, String> {
    let empty_input = Regex::new(&text.empty_input)
        .map_err(|e| format!("exit.empty_input {:?}: {e}", text.empty_input))?;
    Ok(ExitRule {
        command: text.command,
        empty_input,
    })
}

/// `[launch.resume_keeps]`, checked against the rest of `[launch]`: a kept
/// option must never be one that picks a session, steers away from one, or
/// holds a secret, and its arity must agree with `value_options`.
fn resume_keeps(launch: &LaunchText, resume: Option<&ArgTemplate>) -> Result<ResumeKeeps, String> {
    let keeps = &launch.resume_keeps;
    check_flags("resume_keeps.values", &keeps.values)?;
    check_flags("resume_keeps.lists", &keeps.lists)?;
    check_flags("resume_keeps.switches", &keeps.switches)?;
    let all: Vec<&String> = keeps
        .values
        .iter()
        .chain(&keeps.lists)
        .chain(&keeps.switches)
        .collect();
    if !all.is_empty() && resume.is_none() {
        return Err("resume_keeps needs a resume command to keep them in".into());
    }
    let template_words = resume.map_or(&[][..], |t| &t.words[..]);
    for flag in &all {
        let forbidden = [
            ("session_flags", &launch.session_flags),
            ("hands_off_flags", &launch.hands_off_flags),
            ("secret_flags", &launch.secret_flags),
        ];
        if let Some((list, _)) = forbidden.iter().find(|(_, l)| l.contains(flag)) {
            return Err(format!("resume_keeps: {flag:?} is one of {list}"));
        }
        if template_words.iter().any(|w| w == *flag) {
            return Err(format!(
                "resume_keeps: {flag:?} is a word of the resume command"
            ));
        }
        if all.iter().filter(|f| f == &flag).count() > 1 {
            return Err(format!("resume_keeps: {flag:?} is listed twice"));
        }
    }
    if let Some(flag) = keeps
        .values
        .iter()
        .find(|f| !launch.value_options.contains(f))
    {
        return Err(format!(
            "resume_keeps.values: {flag:?} is not in value_options"
        ));
    }
    if let Some(flag) = keeps
        .switches
        .iter()
        .find(|f| launch.value_options.contains(f))
    {
        return Err(format!(
            "resume_keeps.switches: {flag:?} takes a value (it is in value_options)"
        ));
    }
    Ok(ResumeKeeps {
        values: keeps.values.clone(),
        lists: keeps.lists.clone(),
        switches: keeps.switches.clone(),
    })
}

fn id_rule(id: &IdText) -> Result<IdRule, String> {
    match (id.rule, &id.pattern, &id.text) {
        (IdKindText::Uuid, None, None) => Ok(IdRule::Uuid),
        (IdKindText::None, None, None) => Ok(IdRule::Generic),
        (IdKindText::Pattern, Some(pattern), Some(text)) => {
            if !pattern.starts_with('^') || !pattern.ends_with('$') {
                return Err(format!(
                    "id pattern {pattern:?} must start with ^ and end with $"
                ));
            }
            let regex = Regex::new(pattern).map_err(|e| format!("id pattern {pattern:?}: {e}"))?;
            let rule = IdRule::Pattern {
                regex,
                text: text.clone(),
            };
            let example = text.rsplit(' ').next().unwrap_or_default();
            if !text.starts_with("must ") || !crate::session_id::follows(&rule, example) {
                return Err(format!(
                    "id text {text:?} must say \"must …\" and end with an id that follows the pattern"
                ));
            }
            Ok(rule)
        }
        (IdKindText::Pattern, _, _) => Err("an id pattern needs `pattern` and `text`".into()),
        _ => Err("only an id rule of \"pattern\" takes `pattern` and `text`".into()),
    }
}

/// `["--resume", "{id}"]`: words, one of which is `{id}` or `--flag={id}`.
fn template(words: &[String]) -> Result<ArgTemplate, String> {
    let id = ArgTemplate::ID;
    let holding: Vec<&String> = words.iter().filter(|w| w.contains(id)).collect();
    let well_placed = |word: &str| {
        word == id
            || word
                .strip_suffix(&format!("={id}"))
                .is_some_and(|flag| flag.starts_with('-') && !flag.contains(id))
    };
    match holding.as_slice() {
        [word] if well_placed(word) => {}
        _ => {
            return Err(format!(
                "{words:?} must hold {id} exactly once, as a word of its own or as --flag={id}"
            ));
        }
    }
    if words
        .iter()
        .any(|w| w.is_empty() || w.chars().any(char::is_whitespace))
    {
        return Err(format!("{words:?} has an empty word or one with a space"));
    }
    Ok(ArgTemplate {
        words: words.to_vec(),
    })
}

fn check_flags(what: &str, flags: &[String]) -> Result<(), String> {
    match flags
        .iter()
        .find(|f| !f.starts_with('-') || f.len() < 2 || f.contains('='))
    {
        Some(flag) => Err(format!(
            "{what}: {flag:?} is not an option like -x or --name"
        )),
        None => Ok(()),
    }
}

/// A program, subcommand or process name: one plain word.
fn check_word(what: &str, word: &str) -> Result<(), String> {
    let plain = !word.is_empty()
        && !word.starts_with('-')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        Ok(())
    } else {
        Err(format!(
            "{what} {word:?} must be one word of A-Z a-z 0-9 - _ ."
        ))
    }
}

fn hook_rule(hook: HookText) -> HookRule {
    let effect = HookEffect {
        activity: hook.activity.map(activity),
        needs: hook.needs.map(needs),
    };
    let by_message = hook
        .message
        .into_iter()
        .map(|case| {
            let meant = HookEffect {
                activity: case.activity.map(activity),
                needs: case.needs.map(needs),
            };
            (case.has.to_ascii_lowercase(), meant)
        })
        .collect();
    HookRule {
        event: hook.event,
        effect,
        by_message,
    }
}

fn activity(text: ActivityText) -> AgentActivity {
    match text {
        ActivityText::Working => AgentActivity::Working,
        ActivityText::Blocked => AgentActivity::Blocked,
        ActivityText::Done => AgentActivity::Done,
        ActivityText::Idle => AgentActivity::Idle,
    }
}

fn needs(text: NeedsText) -> AgentNeeds {
    match text {
        NeedsText::Nothing => AgentNeeds::Nothing,
        NeedsText::Unread => AgentNeeds::Unread,
        NeedsText::Input => AgentNeeds::Input,
        NeedsText::Permission => AgentNeeds::Permission,
        NeedsText::Error => AgentNeeds::Error,
    }
}

/// The relay's event word, checked: a word that is none of the events it
/// relays (which must be listed, since a relayed event is looked up there).
fn hook_relay(text: HookRelayText, hooks: &[HookText]) -> Result<String, String> {
    check_word("hook_relay.event", &text.event)?;
    if hooks.is_empty() {
        return Err("hook_relay needs [[hook]] events to relay".into());
    }
    if hooks.iter().any(|hook| hook.event == text.event) {
        return Err(format!(
            "hook_relay.event {:?} is also a [[hook]] event; a relay names none of its own",
            text.event
        ));
    }
    Ok(text.event)
}

fn hook_config(text: HookConfigText, has_events: bool) -> Result<HookConfig, String> {
    let format = match text.format {
        HookFormatText::SettingsHooks => HookFormat::SettingsHooks,
        HookFormatText::CopilotHooks => HookFormat::CopilotHooks,
        HookFormatText::CodexNotify => HookFormat::CodexNotify,
    };
    if format != HookFormat::CodexNotify && !has_events {
        return Err("hook_config needs [[hook]] events to install".into());
    }
    relative_path("hook_config.home", &text.home)?;
    relative_path("hook_config.user", &text.user)?;
    let project = match (text.project, text.project_root) {
        (Some(file), root) => {
            relative_path("hook_config.project", &file)?;
            let root = match root {
                Some(ProjectRootText::GitRoot) => ProjectRoot::GitRoot,
                Some(ProjectRootText::Cwd) | None => ProjectRoot::Cwd,
            };
            Some((root, file))
        }
        (None, Some(_)) => return Err("hook_config.project_root needs a project file".into()),
        (None, None) => None,
    };
    Ok(HookConfig {
        format,
        dir: store_root(text.home, text.env, "hook_config.env")?,
        user_file: text.user,
        project,
    })
}

/// Where a directory of the agent's is: the first of `env` that is set
/// (plus its suffix), else `$HOME/home`.
fn store_root(home: String, env: Vec<EnvText>, what: &str) -> Result<StoreRoot, String> {
    for env in &env {
        let name_ok = !env.name.is_empty()
            && env
                .name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if !name_ok {
            return Err(format!("{what} {:?} is not a variable name", env.name));
        }
        if !env.suffix.is_empty() {
            relative_path(&format!("{what} suffix"), &env.suffix)?;
        }
    }
    Ok(StoreRoot {
        env: env.into_iter().map(|e| (e.name, e.suffix)).collect(),
        home_path: home,
    })
}

fn store(text: StoreText) -> Result<SessionStore, String> {
    relative_path("sessions.home", &text.home)?;
    let jsonl = (text.files, text.id_field, text.cwd_field);
    let format = match (plain_format(text.reader), jsonl) {
        (Some(format), (None, None, None)) => format,
        (Some(_), _) => {
            return Err("only reader jsonl-heads takes files, id_field and cwd_field".into());
        }
        (None, (Some(files), Some(id_field), Some(cwd_field))) => {
            relative_path("sessions.files", &files)?;
            if files.split('/').any(|part| part.matches('*').count() > 1) {
                return Err(format!("sessions.files {files:?}: at most one * per name"));
            }
            StoreFormat::JsonlHeads {
                files,
                id_field,
                cwd_field,
            }
        }
        (None, _) => return Err("reader jsonl-heads needs files, id_field and cwd_field".into()),
    };
    let root = store_root(text.home, text.env, "sessions.env")?;
    Ok(SessionStore { format, root })
}

/// The format a reader with no settings of its own reads; `None` for
/// jsonl-heads, whose layout the file gives.
fn plain_format(reader: ReaderText) -> Option<StoreFormat> {
    Some(match reader {
        ReaderText::PidFile => StoreFormat::PidFile,
        ReaderText::ProjectChats => StoreFormat::ProjectChats,
        ReaderText::DatedRollouts => StoreFormat::DatedRollouts,
        ReaderText::SessionFiles => StoreFormat::SessionFiles,
        ReaderText::StateDirs => StoreFormat::StateDirs,
        ReaderText::HashedChatDirs => StoreFormat::HashedChatDirs,
        ReaderText::JsonlHeads => return None,
    })
}

/// A path inside a directory: relative, and never climbing out of it.
fn relative_path(what: &str, path: &str) -> Result<(), String> {
    if path.is_empty()
        || path.starts_with('/')
        || path.split('/').any(|p| p == ".." || p.is_empty())
    {
        return Err(format!(
            "{what} {path:?} must be a relative path without .."
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_file_parses_and_passes_its_checks() {
        for kind in AgentKind::ALL {
            if let Some(text) = bundled(kind) {
                parse(kind, text).unwrap_or_else(|e| panic!("agents/{kind}.toml: {e}"));
            }
        }
        assert!(load_errors().is_empty(), "{:?}", load_errors());
    }

    #[test]
    fn broken_files_say_what_is_wrong() {
        // (in claude's file, replace this, with that: the error names this)
        let cases = [
            ("name = \"claude\"", "name = \"codex\"", "name"),
            ("program = \"claude\"", "program = \"a b\"", "program"),
            ("name = \"claude\"", "bogus = 1\nname = \"claude\"", "bogus"),
            ("[\"--resume\", \"{id}\"]", "[\"--resume\"]", "{id}"),
            (
                "[\"--resume\", \"{id}\"]",
                "[\"{id}\", \"{id}\"]",
                "exactly once",
            ),
            (
                "[\"--resume\", \"{id}\"]",
                "[\"--resume {id}\"]",
                "exactly once",
            ),
            ("rule = \"uuid\"", "rule = \"none\"", "none"),
            ("rule = \"uuid\"", "rule = \"pattern\"", "pattern"),
            ("\"--fork-session\",", "\"fork\",", "hands_off_flags"),
            (
                "reader = \"pid-file\"",
                "reader = \"jsonl-heads\"",
                "jsonl-heads",
            ),
            ("home = \".claude\"", "home = \"../x\"", ".."),
            ("activity = \"done\"", "activity = \"asleep\"", "asleep"),
            ("rows = 24", "rows = 0", "rows"),
            (
                "\"--model\", \"--permission-mode\"",
                "\"--resume\", \"--permission-mode\"",
                "session_flags",
            ),
            (
                "\"--model\", \"--permission-mode\"",
                "\"--print\", \"--permission-mode\"",
                "value_options",
            ),
            (
                "\"--strict-mcp-config\", \"--verbose\"",
                "\"--strict-mcp-config\", \"--debug-file\"",
                "takes a value",
            ),
            (
                "\"--strict-mcp-config\", \"--verbose\"",
                "\"--strict-mcp-config\", \"--add-dir\"",
                "twice",
            ),
            ("format = \"settings-hooks\"", "format = \"ini\"", "ini"),
            (
                "user = \"settings.json\"",
                "user = \"../settings.json\"",
                "hook_config.user",
            ),
            (
                "project = \".claude/settings.json\"",
                "project_root = \"git-root\"",
                "needs a project file",
            ),
        ];
        let text = bundled(AgentKind::Claude).unwrap();
        let relay = |event: &str| format!("[hook_relay]\nevent = \"{event}\"\n\n[[hook]]");
        let relays = [
            ("[[hook]]", relay("Stop"), "also a [[hook]] event"),
            ("[[hook]]", relay("a b"), "hook_relay.event"),
        ];
        let cases = cases
            .into_iter()
            .map(|(this, that, needle)| (this, that.to_string(), needle))
            .chain(relays);
        for (this, that, needle) in cases {
            assert!(text.contains(this), "{this}");
            let err = parse(AgentKind::Claude, &text.replacen(this, &that, 1)).unwrap_err();
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }

    #[test]
    fn an_id_pattern_must_be_anchored_and_its_example_must_follow_it() {
        let rule = |pattern: &str, text: &str| {
            id_rule(&IdText {
                rule: IdKindText::Pattern,
                pattern: Some(pattern.into()),
                text: Some(text.into()),
            })
        };
        assert!(rule("^T-[0-9]+$", "must be T- and digits, like T-12").is_ok());
        assert!(rule("T-[0-9]+", "must be T- and digits, like T-12").is_err());
        assert!(rule("^T-[0-9]+$", "must be T- and digits, like T-x").is_err());
        assert!(rule("^(.*$", "must be anything, like x").is_err());
    }
}
