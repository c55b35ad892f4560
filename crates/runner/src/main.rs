//! The `runner` binary; see `runner --help`.

fn main() {
    std::process::exit(runner::app::main_with_args(std::env::args_os()));
}
