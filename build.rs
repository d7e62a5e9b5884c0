//! Embeds the fixture corpus (`tests/fixtures/repair/`) as a Rust table, so the native and the wasm test
//! runners (which cannot read files) run exactly the same cases. Only tests include the generated file.

use std::fmt::Write as _;
use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new("tests/fixtures/repair");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter_map(|n| n.strip_suffix(".in").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let abs = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut code = String::from("pub static REPAIR_FIXTURES: &[Fixture] = &[\n");
    let opt = |ext: &str, name: &str| {
        let p = abs.join(format!("{name}{ext}"));
        if p.exists() {
            format!("Some(include_str!({:?}))", p.display().to_string())
        } else {
            "None".to_string()
        }
    };
    for name in &names {
        let input = abs.join(format!("{name}.in"));
        let _ = writeln!(
            code,
            "    Fixture {{ name: {name:?}, input: include_str!({:?}), expected: {}, error: {}, repairs: {} }},",
            input.display().to_string(),
            opt(".out.json", name),
            opt(".error", name),
            opt(".repairs", name)
        );
    }
    code.push_str("];\n");
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("fixtures.rs");
    fs::write(out, code).expect("write fixtures.rs");
}
