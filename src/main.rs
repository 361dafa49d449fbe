//! The `signaltty` command: see `cli` for what it takes.

fn main() -> std::process::ExitCode {
    signaltty::main()
}
