//! Reading a command line: the `env` prefix, the program, and the options.
//!
//! Nothing here knows about a particular agent; the per-kind lists come in
//! through [`AdapterSpec`].

use crate::kinds::AdapterSpec;

/// A command line cut into its `env` prefix, program and arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Invocation<'a> {
    /// A leading `env …` (possibly several, `env A=1 env B=2 …`), verbatim.
    /// Empty when the command line does not start with `env`.
    pub(crate) env_prefix: &'a [String],
    /// The program as written, e.g. `claude` or `/opt/bin/claude`.
    pub(crate) program: &'a str,
    /// Everything after the program.
    pub(crate) args: &'a [String],
}

impl Invocation<'_> {
    /// The index of the program in the whole argv.
    pub(crate) fn program_index(&self) -> usize {
        self.env_prefix.len()
    }
}

/// Splits `argv` into env prefix, program and arguments.
///
/// A command line that starts with `env` (by basename, so `/usr/bin/env`
/// too) is read the way GNU and BSD `env` read it: `-i`, `-`,
/// `--ignore-environment`, `-u NAME`/`-uNAME`/`--unset[=]NAME`,
/// `-C DIR`/`-CDIR`/`--chdir[=]DIR`, `-v`/`--debug`, `--`, then any number of
/// `NAME=VALUE`, then the program. An `env` option outside that list (such
/// as `-S`, which re-splits a string into words) makes the command line
/// unreadable, and so does an `env` with no program: `None`. An empty argv is
/// `None` too.
pub(crate) fn split(argv: &[String]) -> Option<Invocation<'_>> {
    split_noting_assignments(argv, &mut Vec::new())
}

/// [`split`], also pushing the index of every `NAME=VALUE` operand of the
/// `env` prefix onto `assignments`.
pub(crate) fn split_noting_assignments<'a>(
    argv: &'a [String],
    assignments: &mut Vec<usize>,
) -> Option<Invocation<'a>> {
    let mut at = 0;
    loop {
        let program = argv.get(at)?;
        if basename(program) != "env" {
            return Some(Invocation {
                env_prefix: &argv[..at],
                program,
                args: &argv[at + 1..],
            });
        }
        at = skip_env_operands(argv, at + 1, assignments)?;
    }
}

/// Given the index just after an `env`, the index of the command it runs;
/// the indices of its `NAME=VALUE` operands go onto `assignments`.
fn skip_env_operands(
    argv: &[String],
    mut at: usize,
    assignments: &mut Vec<usize>,
) -> Option<usize> {
    let mut options_done = false;
    while let Some(token) = argv.get(at) {
        let token = token.as_str();
        if !options_done && token.starts_with('-') {
            at += match token {
                "-" | "-i" | "--ignore-environment" | "-v" | "--debug" => 1,
                "--" => {
                    options_done = true;
                    1
                }
                "-u" | "--unset" | "-C" | "--chdir" => 2,
                _ if token.starts_with("--unset=") || token.starts_with("--chdir=") => 1,
                _ if token.len() > 2 && (token.starts_with("-u") || token.starts_with("-C")) => 1,
                _ => return None,
            };
        } else if is_assignment(token) {
            options_done = true;
            assignments.push(at);
            at += 1;
        } else {
            return (at < argv.len()).then_some(at);
        }
    }
    None
}

/// `NAME=VALUE` as `env` understands it: an `=` that is not the first
/// character.
pub(crate) fn is_assignment(token: &str) -> bool {
    token.find('=').is_some_and(|eq| eq > 0)
}

/// The last `/`-separated component of a program path.
pub(crate) fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// What the options of one command line say about sessions.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Scan<'a> {
    /// The values given to the kind's `session_flags`, in order. `None` for a
    /// flag with no value at all (at the end of the line).
    pub(crate) session_values: Vec<Option<&'a str>>,
    /// A hands-off flag was seen (or a session flag inside a cluster of
    /// short options, whose value cannot be read reliably).
    pub(crate) hands_off: bool,
    /// A flag from [`crate::kinds::ANY_KIND_SESSION_FLAGS`] was seen.
    pub(crate) any_kind_session_flag: bool,
    /// Tokens before `--` that are neither options nor the values of known
    /// options, in order.
    pub(crate) positionals: Vec<&'a str>,
    /// Everything after a `--`, not interpreted as options.
    pub(crate) trailing: &'a [String],
}

/// Reads `args` (everything after the program) with `spec`'s lists, stopping
/// at `--`.
///
/// * `--name` and `--name=value` are looked up by `--name`.
/// * `-x` is looked up as it is; a following token is its value when `-x` is
///   a session flag or a value option.
/// * A cluster `-xyz` is read letter by letter as `-x`, `-y`, `-z`, as the
///   agents' parsers do; a letter that is a value option ends the cluster
///   (the rest is its value). A session flag inside a cluster counts as
///   hands-off, since its value is then glued on or in the next token.
pub(crate) fn scan<'a>(spec: &AdapterSpec, args: &'a [String]) -> Scan<'a> {
    let mut out = Scan::default();
    let mut at = 0;
    while let Some(token) = args.get(at) {
        let token = token.as_str();
        at += 1;
        if token == "--" {
            out.trailing = &args[at..];
            break;
        }
        let is_long = token.starts_with("--");
        let is_single_short = !is_long && token.starts_with('-') && token.chars().count() == 2;
        if is_long || is_single_short {
            let (name, inline) = match token.split_once('=') {
                Some((name, value)) if is_long => (name, Some(value)),
                _ => (token, None),
            };
            if crate::kinds::ANY_KIND_SESSION_FLAGS.contains(&name) {
                out.any_kind_session_flag = true;
            }
            if AdapterSpec::has(&spec.session_flags, name) {
                let value = inline.or_else(|| {
                    let next = args.get(at).map(String::as_str);
                    if next.is_some() {
                        at += 1;
                    }
                    next
                });
                out.session_values.push(value);
            } else if AdapterSpec::has(&spec.hands_off_flags, name) {
                out.hands_off = true;
            } else if inline.is_none() && AdapterSpec::has(&spec.value_options, name) {
                at += 1;
            }
        } else if token.len() > 1 && token.starts_with('-') {
            for letter in token.chars().skip(1) {
                let flag = format!("-{letter}");
                if crate::kinds::ANY_KIND_SESSION_FLAGS.contains(&flag.as_str()) {
                    out.any_kind_session_flag = true;
                }
                if AdapterSpec::has(&spec.session_flags, &flag)
                    || AdapterSpec::has(&spec.hands_off_flags, &flag)
                {
                    out.hands_off = true;
                }
                if AdapterSpec::has(&spec.value_options, &flag) {
                    break;
                }
            }
        } else {
            out.positionals.push(token);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::{AgentKind, Spec};

    fn v(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    /// An argv, and its prefix length and program (`None` when unreadable).
    type SplitCase = (&'static [&'static str], Option<(usize, &'static str)>);

    #[test]
    fn split_reads_env_prefixes() {
        let cases: &[SplitCase] = &[
            (&[], None),
            (&["claude"], Some((0, "claude"))),
            (&["env", "A=1", "claude", "x"], Some((2, "claude"))),
            (
                &["/usr/bin/env", "A=1", "B=2", "claude"],
                Some((3, "claude")),
            ),
            (&["env", "-i", "claude"], Some((2, "claude"))),
            (&["env", "-", "claude"], Some((2, "claude"))),
            (&["env", "-u", "HOME", "claude"], Some((3, "claude"))),
            (&["env", "-uHOME", "claude"], Some((2, "claude"))),
            (&["env", "--unset=HOME", "claude"], Some((2, "claude"))),
            (&["env", "--unset", "HOME", "claude"], Some((3, "claude"))),
            (&["env", "-C", "/tmp", "claude"], Some((3, "claude"))),
            (&["env", "--chdir=/tmp", "claude"], Some((2, "claude"))),
            (&["env", "-i", "--", "A=1", "claude"], Some((4, "claude"))),
            (&["env", "A=1", "env", "B=2", "claude"], Some((4, "claude"))),
            (&["env", "--", "claude"], Some((2, "claude"))),
            (&["env"], None),
            (&["env", "A=1"], None),
            (&["env", "-u"], None),
            (&["env", "-S", "claude --resume"], None),
            (&["env", "--split-string=claude", "x"], None),
            (&["env", "=x", "claude"], Some((1, "=x"))),
            // After an assignment, a dash word is the program, as in GNU env.
            (&["env", "A=1", "-i", "claude"], Some((2, "-i"))),
        ];
        for (argv, want) in cases {
            let argv = v(argv);
            let got = split(&argv).map(|inv| (inv.program_index(), inv.program));
            assert_eq!(got, *want, "argv {argv:?}");
        }
    }

    #[test]
    fn basename_takes_the_last_component() {
        for (program, want) in [
            ("claude", "claude"),
            ("/opt/bin/claude", "claude"),
            ("./node_modules/.bin/claude", "claude"),
            ("../claude", "claude"),
            ("bin/", ""),
            ("", ""),
        ] {
            assert_eq!(basename(program), want, "{program:?}");
        }
    }

    #[test]
    fn scan_skips_values_of_known_options_and_stops_at_double_dash() {
        let args = v(&["--model", "opus", "-n", "doctor", "fix", "--", "--resume"]);
        let got = scan(AgentKind::Claude.spec(), &args);
        assert_eq!(got.positionals, vec!["fix"]);
        assert_eq!(got.trailing, &v(&["--resume"])[..]);
        assert!(got.session_values.is_empty());
        assert!(!got.hands_off && !got.any_kind_session_flag);
    }

    #[test]
    fn scan_reads_session_flag_values_in_both_spellings() {
        let args = v(&["--resume=a", "-r", "b", "--session-id", "c", "--resume"]);
        let got = scan(AgentKind::Claude.spec(), &args);
        assert_eq!(
            got.session_values,
            vec![Some("a"), Some("b"), Some("c"), None]
        );
        assert!(got.positionals.is_empty());
        assert!(got.any_kind_session_flag);
    }

    #[test]
    fn scan_reads_short_clusters_letter_by_letter() {
        // -pc is -p -c: continue.
        assert!(scan(AgentKind::Claude.spec(), &v(&["-pc"])).hands_off);
        // -pr: a resume whose value is glued or next: hands off.
        assert!(scan(AgentKind::Claude.spec(), &v(&["-pr", "x"])).hands_off);
        // -nfoo is -n with value "foo"; the letters after n are not flags.
        let args = v(&["-ncool"]);
        let got = scan(AgentKind::Claude.spec(), &args);
        assert!(!got.hands_off, "{got:?}");
        // codex -cfoo=1 is --config foo=1, not continue.
        assert!(!scan(AgentKind::Codex.spec(), &v(&["-cfoo=1"])).hands_off);
    }
}
