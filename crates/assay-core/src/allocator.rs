//! The settings of mimalloc (v3, as `libmimalloc-sys` builds it), the allocator of Assay's
//! binaries and of SQLite inside them.

/// mimalloc's `mi_option_arena_eager_commit` (`mimalloc.h`).
pub const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Makes mimalloc commit its arenas as they are used rather than whole. It must run before
/// anything allocates through mimalloc, which is before `main` (Tauri's constructors allocate):
/// a binary calls it through
/// [`give_freed_memory_back_at_load!`](crate::give_freed_memory_back_at_load).
///
/// On Linux mimalloc commits its first arena (1 GiB of address space) whole and, doing so,
/// advises the kernel to back it with transparent huge pages (`MADV_HUGEPAGE`). Where THP is
/// on for advised memory (the common `madvise` setting, and this machine's), the arena's pages
/// are 2 MiB: memory mimalloc frees and purges in smaller pieces stays resident in them
/// (`AnonHugePages` of an import: 30 MB). Committed as used, the arena is not advised. At
/// 100,000 items the app holds ~20 MB less after opening a project (`bench-memory`), and an
/// import peaks lower at the same speed (BENCHMARKS.md). It is a default: a
/// `MIMALLOC_ARENA_EAGER_COMMIT` in the environment still wins.
pub extern "C" fn give_freed_memory_back() {
    // SAFETY: mi_option_set_default stores a default in mimalloc's static option table and
    // allocates nothing, so it may run before mimalloc has started; the environment is still
    // read when the option is first used.
    unsafe { libmimalloc_sys::mi_option_set_default(ARENA_EAGER_COMMIT, 0) }
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
