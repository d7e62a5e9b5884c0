//! The engine's one map: strings to indices, for the compiler's tables (resources, anchors, scopes,
//! compiled nodes, dynamic anchors).
//!
//! Written out rather than `std::collections::HashMap`: the standard map brought 6 KB of wasm (its
//! table code, SipHash, and the random-key machinery, which has no randomness to use in
//! wasm32-unknown-unknown anyway). The keys are the schema's own URIs and JSON Pointers, written by the
//! developer, never the text being validated, so an unkeyed hash is enough.

use crate::prelude::*;
/// Strings to indices: open addressing with linear probing over a table at most half full.
#[derive(Clone, Debug, Default)]
pub(crate) struct Map {
    entries: Vec<(String, usize)>,
    /// 0 for an empty slot, else 1 + the index of an entry. Empty, or a power of two in length.
    slots: Vec<u32>,
}

/// FNV-1a.
fn hash(key: &str) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in key.as_bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h as usize
}

impl Map {
    pub fn new() -> Map {
        Map::default()
    }

    /// The entry for `key`, or the empty slot where it would go.
    fn find(&self, key: &str) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = hash(key) & mask;
        loop {
            match self.slots.get(at) {
                Some(0) | None => return Err(at),
                Some(&e) => {
                    let e = e as usize - 1;
                    if self.entries[e].0 == key {
                        return Ok(e);
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    pub fn get(&self, key: &str) -> Option<usize> {
        self.find(key).ok().map(|e| self.entries[e].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, replacing what it was.
    pub fn insert(&mut self, key: String, value: usize) {
        match self.find(&key) {
            Ok(e) => self.entries[e].1 = value,
            Err(_) => _ = self.insert_new(key, value),
        }
    }

    /// Sets `key` to `value` unless it has a value; whether it was set.
    pub fn insert_new(&mut self, key: String, value: usize) -> bool {
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        match self.find(&key) {
            Ok(_) => false,
            Err(slot) => {
                self.entries.push((key, value));
                self.slots[slot] = self.entries.len() as u32;
                true
            }
        }
    }

    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(16);
        self.slots = vec![0; len];
        for (e, (key, _)) in self.entries.iter().enumerate() {
            let mut at = hash(key) & (len - 1);
            while self.slots[at] != 0 {
                at = (at + 1) & (len - 1);
            }
            self.slots[at] = e as u32 + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_keeps_every_key_through_growth() {
        let mut m = Map::new();
        assert_eq!(m.get("a"), None);
        for i in 0..1000 {
            m.insert(format!("k{i}"), i);
        }
        assert!(!m.insert_new("k7".into(), 1));
        m.insert("k7".into(), 70);
        for i in 0..1000 {
            assert_eq!(m.get(&format!("k{i}")), Some(if i == 7 { 70 } else { i }));
        }
        assert!(m.contains_key("k999") && !m.contains_key("k1000"));
        let copy = m.clone();
        assert_eq!(copy.get("k500"), Some(500));
    }
}
