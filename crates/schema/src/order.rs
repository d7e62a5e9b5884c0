//! The one sort: indices, by a comparison, stably.

use crate::prelude::*;
/// Sorts indices with `cmp`, stably, in O(n log n) comparisons: a bottom-up merge sort.
///
/// It serves every sort of this crate and of the main crate, and is written out because the standard library's sorts
/// cost about 8 KB of wasm for each type they are instantiated with.
#[inline(never)]
pub fn sort_indices(order: &mut [usize], cmp: &dyn Fn(usize, usize) -> core::cmp::Ordering) {
    let n = order.len();
    let mut from = order.to_vec();
    let mut into = vec![0; n];
    let mut width = 1;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            for slot in &mut into[start..end] {
                // Take from the left run unless the right one is strictly smaller (stability).
                if j >= end || (i < mid && cmp(from[j], from[i]).is_ge()) {
                    *slot = from[i];
                    i += 1;
                } else {
                    *slot = from[j];
                    j += 1;
                }
            }
        }
        core::mem::swap(&mut from, &mut into);
        width *= 2;
    }
    order.copy_from_slice(&from);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_indices_is_a_stable_sort() {
        let mut seed = 7u64;
        for n in [0, 1, 2, 3, 5, 8, 33, 1000, 4097] {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 33) % 17
                })
                .collect();
            let mut order: Vec<usize> = (0..n).collect();
            sort_indices(&mut order, &|a, b| keys[a].cmp(&keys[b]));
            let mut expected: Vec<usize> = (0..n).collect();
            expected.sort_by_key(|&i| keys[i]);
            assert_eq!(order, expected, "n = {n}");
        }
    }
}
