//! Issues, coercions and extraction results as JSON text, the form hosts parse with `JSON.parse`.

use super::coerce::Coercion;
use super::validate::Issue;
use super::value::write_str;

/// Appends one issue as `{"path","keyword","message","schemaPath","params"}`.
fn push_issue(s: &mut String, i: &Issue) {
    s.push_str("{\"path\":");
    write_str(&i.path, s);
    s.push_str(",\"keyword\":");
    write_str(i.keyword, s);
    s.push_str(",\"message\":");
    write_str(&i.message, s);
    s.push_str(",\"schemaPath\":");
    write_str(&i.schema_path, s);
    s.push_str(",\"params\":");
    s.push_str(&i.params.to_json());
    s.push('}');
}

fn push_list<T>(s: &mut String, items: &[T], push: fn(&mut String, &T)) {
    s.push('[');
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            s.push(',');
        }
        push(s, item);
    }
    s.push(']');
}

fn push_coercion(s: &mut String, c: &Coercion) {
    s.push_str("{\"path\":");
    write_str(&c.path, s);
    s.push_str(",\"from\":");
    s.push_str(&c.from.to_json());
    s.push_str(",\"to\":");
    s.push_str(&c.to.to_json());
    s.push_str(",\"rule\":");
    write_str(c.rule.code(), s);
    s.push('}');
}

/// `{"code","message","schemaPath"}` for a schema that did not compile.
pub fn error_json(code: &str, message: &str, schema_path: &str) -> String {
    let mut s = String::from("{\"code\":");
    write_str(code, &mut s);
    s.push_str(",\"message\":");
    write_str(message, &mut s);
    s.push_str(",\"schemaPath\":");
    write_str(schema_path, &mut s);
    s.push('}');
    s
}

/// `{"valid":…,"issues":[…]}`.
pub fn validation_json(issues: &[Issue]) -> String {
    let mut s = format!("{{\"valid\":{},\"issues\":", issues.is_empty());
    push_list(&mut s, issues, push_issue);
    s.push('}');
    s
}

/// Appends `[…]` of issues, each `{"path","keyword","message","schemaPath","params"}`.
pub fn push_issues(s: &mut String, issues: &[Issue]) {
    push_list(s, issues, push_issue);
}

/// Appends `[…]` of coercions, each `{"path","from","to","rule"}`.
pub fn push_coercions(s: &mut String, coercions: &[Coercion]) {
    push_list(s, coercions, push_coercion);
}
