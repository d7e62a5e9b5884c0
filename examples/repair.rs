//! Reads a response on stdin and prints the repaired JSON and the repair record (a debugging aid).
//! `cargo run --example repair < response.txt`

use std::io::Read;

fn main() {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .expect("stdin is UTF-8 text");
    match llm_response_sanitizer::repair(&text, &Default::default()) {
        Ok(out) => {
            println!("{}", out.json);
            for r in &out.repairs {
                eprintln!("{:>6}  {}", r.offset, r.kind.code());
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
