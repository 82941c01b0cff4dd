//! Work spread over the machine's CPUs: how many threads a reading or a computation over a whole plan takes, and an
//! order-keeping parallel map over a slice.

/// How many threads a reading or a computation takes: every available CPU, up to 8.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8)
}

/// `f` of each item, in order, computed on up to [`threads`] threads (a plan's ids, a report's bootstraps). The
/// order of the results never depends on the threads; a panic in `f` is resumed on the caller's thread.
///
/// ```
/// use metewand_campaign::parallel::map_parallel;
///
/// assert_eq!(map_parallel(&[1, 2, 3, 4, 5], |n| n * n), [1, 4, 9, 16, 25]);
/// ```
pub fn map_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads();
    if threads == 1 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    // Each thread fills its part of one list in place, so that a million results are not held twice (each
    // thread's own list, then the list made of them).
    let mut out: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(chunk)
            .zip(out.chunks_mut(chunk))
            .map(|(part, into)| {
                scope.spawn(move || {
                    for (item, slot) in part.iter().zip(into) {
                        *slot = Some(f(item));
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    // Collected in place, the results where their options were (`flatten` would copy them into a list of its own).
    #[allow(clippy::filter_map_identity)]
    out.into_iter().filter_map(|result| result).collect()
}
