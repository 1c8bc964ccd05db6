//! The settings of mimalloc, the allocator of Assay's binaries and of SQLite inside them.

/// mimalloc's `mi_option_arena_eager_commit` (`mimalloc.h`, v2).
pub const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Lets freed memory go back to the system. It must run before anything allocates through
/// mimalloc, which is before `main` (Tauri's constructors allocate): a binary calls it through
/// [`give_freed_memory_back_at_load!`](crate::give_freed_memory_back_at_load).
///
/// On a system that overcommits (Linux), mimalloc commits its first arena (1 GiB of address
/// space) whole, and an arena committed whole is never purged: `mi_arena_free` skips the purge
/// when the arena keeps no commit bits. So the process kept every page it had ever used for
/// the Rust heap and SQLite's caches. Committed as it is used, freed memory is purged after
/// mimalloc's 10 ms delay. At 100,000 items the app holds ~20 MB less after opening a project
/// (`bench-memory`), and an import peaks lower at the same speed (BENCHMARKS.md).
pub extern "C" fn give_freed_memory_back() {
    // SAFETY: mi_option_set stores the value and marks it set (mimalloc's own start-up then
    // keeps it); it allocates nothing, so it may run before mimalloc has started.
    unsafe { libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0) }
}

/// Runs [`give_freed_memory_back`] when the binary is loaded, before the constructors of the
/// default priority (Tauri's among them) and before `main`. Put it once in a binary's root.
#[macro_export]
macro_rules! give_freed_memory_back_at_load {
    () => {
        #[cfg(target_os = "linux")]
        #[used]
        // Priority 101, the first one a program may use: sections sort by it, ahead of the
        // constructors without one.
        #[link_section = ".init_array.00101"]
        static GIVE_FREED_MEMORY_BACK: extern "C" fn() = $crate::allocator::give_freed_memory_back;
    };
}
