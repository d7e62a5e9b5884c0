//! Times the core on a file: `cargo run --release --example speed -- FILE [ITERATIONS]`, the repairer,
//! with `SPEED_CLEAN=1` the cleaner, or with `SPEED_STREAM=N` the streaming parser fed N-byte chunks (a
//! profiling aid;
//! the competitive figures come from `npm run bench`).

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: speed FILE [ITERATIONS]");
    let n: usize = args.next().map_or(1000, |s| s.parse().expect("a number"));
    let text = std::fs::read_to_string(path).expect("readable UTF-8 file");
    let opts = llm_response_sanitizer::RepairOptions {
        assume_invalid: true,
        ..Default::default()
    };
    let cleaning = std::env::var("SPEED_CLEAN").is_ok();
    let chunk: Option<usize> = std::env::var("SPEED_STREAM")
        .ok()
        .map(|v| v.parse().expect("a chunk size"));
    let clean_opts = llm_response_sanitizer::CleanOptions {
        remove_assistant_prefix: true,
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let mut bytes = 0;
    for _ in 0..n {
        bytes += if let Some(size) = chunk {
            stream(&text, size, &opts)
        } else if cleaning {
            llm_response_sanitizer::clean(&text, &clean_opts).len()
        } else {
            llm_response_sanitizer::repair(&text, &opts).map_or(0, |o| o.json.len())
        };
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{:.1} MB/s, {:.2} µs per call ({} output bytes)",
        (text.len() * n) as f64 / secs / 1e6,
        secs * 1e6 / n as f64,
        bytes / n
    );
}

/// Feeds `text` to the streaming parser in chunks of about `size` bytes (cut at character boundaries);
/// the length of the final JSON.
fn stream(text: &str, size: usize, opts: &llm_response_sanitizer::RepairOptions) -> usize {
    let mut parser = llm_response_sanitizer::PartialJson::new(opts);
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let piece = text.get(at..end).expect("cut at a character boundary");
        if parser.push(piece).is_err() {
            return 0;
        }
        at = end;
    }
    parser.finish().map_or(0, |o| o.json.len())
}
