//! Writes `bitstream/alveo/boards/<board>/board.xdc` from the board definitions.
//!
//! usage: `xdc [<board>...]`            (no board: all of them)
//!        `xdc --stdout <board>`        (print instead of writing)
use rocenic_boards::{board, xdc, BOARDS};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (stdout, names): (bool, Vec<&str>) = match args.first().map(String::as_str) {
        Some("--stdout") => (true, args[1..].iter().map(String::as_str).collect()),
        _ => (false, args.iter().map(String::as_str).collect()),
    };
    let boards: Vec<_> = if names.is_empty() {
        BOARDS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                board(n).unwrap_or_else(|| {
                    let known: Vec<_> = BOARDS.iter().map(|b| b.name).collect();
                    eprintln!("error: unknown board {n:?} (known: {})", known.join(", "));
                    std::process::exit(2)
                })
            })
            .collect()
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../alveo/boards");
    for b in boards {
        let text = xdc(b);
        if stdout {
            print!("{text}");
            continue;
        }
        let path = root.join(b.name).join("board.xdc");
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("wrote {}", path.display());
    }
}
