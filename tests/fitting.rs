//! Fitting in like a tool people already use: shell completions and a man
//! page generated from the command line, and a systemd user unit whose
//! command line really starts the server. (Plain `signaltty` opening the
//! multiplexer is tested in `tests/mux.rs`.)

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::{BIN, wait_for};

fn stdout(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What bash offers after `words` (the last one being completed), through
/// the script `signaltty completions bash` prints.
fn bash_complete(script: &Path, words: &[&str]) -> Vec<String> {
    let words_array = words
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    // As bash calls a completion function: the command, the word being
    // completed and the one before it.
    let program = format!(
        "source '{}'; COMP_WORDS=({words_array}); COMP_CWORD={}; COMP_LINE='{}'; \
         COMP_POINT=${{#COMP_LINE}}; _signaltty signaltty '{}' '{}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        words.len() - 1,
        words.join(" "),
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_commands_and_flags_from_the_generated_script() {
    let dir = support::short_temp_dir();
    let script = dir.path().join("signaltty.bash");
    std::fs::write(&script, stdout(&["completions", "bash"])).unwrap();
    let offered = bash_complete(&script, &["signaltty", "se"]);
    assert_eq!(offered, ["sessions"], "{offered:?}");
    let offered = bash_complete(&script, &["signaltty", "ctl", "wo"]);
    assert_eq!(offered, ["workspace"], "{offered:?}");
    let offered = bash_complete(&script, &["signaltty", "--ho"]);
    assert_eq!(offered, ["--host"], "{offered:?}");
    let offered = bash_complete(&script, &["signaltty", "attach", "--ev"]);
    assert_eq!(offered, ["--every-byte"], "{offered:?}");
    let offered = bash_complete(&script, &["signaltty", "completions", ""]);
    for shell in ["bash", "zsh", "fish"] {
        assert!(offered.iter().any(|o| o == shell), "{offered:?}");
    }
}

#[test]
fn zsh_and_fish_scripts_name_every_command() {
    let zsh = stdout(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef signaltty"), "{}", &zsh[..80]);
    let fish = stdout(&["completions", "fish"]);
    for command in ["sessions", "bridge", "attach", "ctl", "completions", "man"] {
        assert!(zsh.contains(&format!("'{command}:")), "zsh lacks {command}");
        assert!(
            fish.contains(&format!("-a \"{command}\"")),
            "fish lacks {command}"
        );
    }
    assert!(fish.contains("-l host"), "fish lacks --host");
    let json: Value = serde_json::from_str(&stdout(&["--json", "completions", "fish"])).unwrap();
    assert_eq!(json["shell"], "fish");
    assert_eq!(json["script"], fish.as_str());
    // An unknown shell is refused.
    let out = Command::new(BIN)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

#[test]
fn the_man_page_documents_the_command_line() {
    let roff = stdout(&["man"]);
    assert!(roff.contains(".TH signaltty 1"), "{}", &roff[..200]);
    for text in [
        "\\-\\-host",
        "\\-\\-session",
        "sessions",
        "bridge",
        "completions",
    ] {
        assert!(roff.contains(text), "the man page lacks {text}");
    }
    let json: Value = serde_json::from_str(&stdout(&["--json", "man"])).unwrap();
    assert_eq!(json["name"], "signaltty.1");
    assert_eq!(json["roff"], roff.as_str());
    // It renders as a man page (nroff comes with man-db).
    let mut nroff = Command::new("nroff")
        .args(["-man"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("nroff (groff-base) renders man pages");
    use std::io::Write;
    nroff
        .stdin
        .take()
        .unwrap()
        .write_all(roff.as_bytes())
        .unwrap();
    let shown = String::from_utf8_lossy(&nroff.wait_with_output().unwrap().stdout).to_string();
    // Undo nroff's overstrike (a backspace between a character and its
    // bold double).
    let mut plain = String::new();
    for c in shown.chars() {
        if c == '\u{8}' {
            plain.pop();
        } else {
            plain.push(c);
        }
    }
    assert!(
        plain.contains("NAME") && plain.contains("SYNOPSIS"),
        "{plain}"
    );
}

/// The `KEY=value` lines of a unit's `[Service]` section, in order.
fn service_settings(unit: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("contrib/systemd")
            .join(unit),
    )
    .unwrap();
    let mut in_service = false;
    let mut settings = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_service = line == "[Service]";
        } else if in_service
            && !line.starts_with('#')
            && let Some((key, value)) = line.split_once('=')
        {
            settings.push((key.to_string(), value.to_string()));
        }
    }
    settings
}

/// A command line split into words as systemd splits `ExecStart`: at
/// blanks, except inside single or double quotes, which go.
fn unit_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (Some(q), _) if c == q => quote = None,
            (None, ' ' | '\t') => words.extend(word.take()),
            _ => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

fn setting<'a>(settings: &'a [(String, String)], key: &str) -> &'a str {
    settings
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {key}= in {settings:?}"))
}

/// Expands the systemd specifiers the units use (`%s`, the user's shell,
/// as `/bin/sh`).
fn expand(value: &str, home: &Path, runtime: &Path, instance: &str) -> String {
    value
        .replace("%s", "/bin/sh")
        .replace("%h", &home.display().to_string())
        .replace("%t", &runtime.display().to_string())
        .replace("%i", instance)
}

#[test]
fn the_systemd_units_run_the_server_in_the_foreground_on_the_usual_socket() {
    for (unit, instance) in [("signaltty.service", ""), ("signaltty@.service", "work")] {
        let settings = service_settings(unit);
        assert_eq!(setting(&settings, "Restart"), "on-failure", "{unit}");
        assert_eq!(setting(&settings, "KillMode"), "mixed", "{unit}");
        let exec = setting(&settings, "ExecStart");
        assert!(exec.contains("up --foreground"), "{unit}: {exec}");

        // Run the unit's command line as systemd would, the binary put
        // where the unit expects it.
        let home = support::short_temp_dir();
        let bin_dir = home.path().join(".cargo/bin");
        std::fs::create_dir_all(&bin_dir).unwrap();
        std::os::unix::fs::symlink(BIN, bin_dir.join("signaltty")).unwrap();
        let runtime = home.path().join("run");
        std::fs::create_dir(&runtime).unwrap();
        std::fs::set_permissions(
            &runtime,
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let words = unit_words(&expand(exec, home.path(), &runtime, instance));
        // What the user's login adds to PATH: panes get it.
        std::fs::write(
            home.path().join(".profile"),
            "PATH=\"$HOME/login-bin:$PATH\"; export PATH\n",
        )
        .unwrap();
        let mut command = Command::new(&words[0]);
        command
            .args(&words[1..])
            .env_clear()
            .env("HOME", home.path())
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (_, value) in settings.iter().filter(|(k, _)| k == "Environment") {
            let (name, val) = value.split_once('=').unwrap();
            command.env(name, expand(val, home.path(), &runtime, instance));
        }
        let mut server = command.spawn().unwrap();
        let socket = if instance.is_empty() {
            runtime.join("signaltty/signaltty.sock")
        } else {
            runtime.join(format!("signaltty/sessions/{instance}/signaltty.sock"))
        };
        // A client with nothing but the same user environment finds it.
        let client = |args: &[&str]| {
            let mut client = Command::new(BIN);
            client
                .env_clear()
                .env("HOME", home.path())
                .env("XDG_RUNTIME_DIR", &runtime);
            if !instance.is_empty() {
                client.args(["--session", instance]);
            }
            client.args(args).output()
        };
        let status: Value = wait_for(
            "the unit's server to answer",
            Duration::from_secs(20),
            || {
                if let Ok(Some(end)) = server.try_wait() {
                    panic!("{unit}: the server exited: {end}");
                }
                let out = client(&["--json", "ctl", "status"]).ok()?;
                out.status
                    .success()
                    .then(|| serde_json::from_slice(&out.stdout).ok())
                    .flatten()
            },
        );
        assert_eq!(status["socket"], socket.display().to_string(), "{unit}");
        // Its panes get the login's PATH, and the binary hooks must run.
        let ws = client(&["ctl", "workspace", "new", "unit"]).unwrap();
        let ws = String::from_utf8_lossy(&ws.stdout).trim().to_string();
        let script = "echo \"path=$PATH bin=$SIGNALTTY_BIN\"; exec sleep 100";
        let pane = client(&["ctl", "new", &ws, "--", "sh", "-c", script]).unwrap();
        let pane = String::from_utf8_lossy(&pane.stdout).trim().to_string();
        let login_bin = home.path().join("login-bin").display().to_string();
        let binary = Path::new(BIN).canonicalize().unwrap().display().to_string();
        let said = wait_for("the pane's environment", Duration::from_secs(20), || {
            let out = client(&["ctl", "read", &pane]).ok()?;
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.contains("bin=").then_some(text)
        });
        assert!(
            said.contains(&format!("path={login_bin}:")),
            "{unit}: {said}"
        );
        assert!(said.contains(&format!("bin={binary}")), "{unit}: {said}");
        // SIGTERM, as systemd stops it: it saves and exits cleanly.
        // SAFETY: kill(2) on the server this test started.
        unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
        let end = wait_for("the server to stop", Duration::from_secs(20), || {
            server.try_wait().ok().flatten()
        });
        assert!(end.success(), "{unit}: {end}");
    }
}
