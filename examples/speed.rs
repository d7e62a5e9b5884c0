//! Times the core on a file: `cargo run --release --example speed -- FILE [ITERATIONS]`, the repairer,
//! or with `SPEED_CLEAN=1` the cleaner (a profiling aid;
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
    let clean_opts = llm_response_sanitizer::CleanOptions {
        remove_assistant_prefix: true,
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let mut bytes = 0;
    for _ in 0..n {
        bytes += if cleaning {
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
