//! mimalloc set before `main`, in a binary of its own (`harness = false`), arranged the way the
//! app is: a constructor allocates through mimalloc before `main` (Tauri's do). It checks that
//! the setting was in place when that constructor ran, and, where transparent huge pages are
//! given to advised memory (the case the setting is for), that large blocks used on a thread
//! that ends (the app reads its facet columns on one) and freed on the main thread go back:
//! with the first arena committed whole, 16 MB of ~600 stayed resident here, 1 MB without.

use std::sync::atomic::{AtomicI64, Ordering};

use libmimalloc_sys::{mi_collect, mi_free, mi_malloc, mi_option_get};

assay_core::give_freed_memory_back_at_load!();

/// `arena_eager_commit` as the first allocation found it; -1 until then.
static EAGER_AT_FIRST_ALLOCATION: AtomicI64 = AtomicI64::new(-1);

extern "C" fn allocate_like_a_dependency_constructor() {
    // SAFETY: reads an option.
    let eager = unsafe { mi_option_get(assay_core::allocator::ARENA_EAGER_COMMIT) };
    EAGER_AT_FIRST_ALLOCATION.store(eager, Ordering::SeqCst);
    // SAFETY: a block of 64 bytes, kept for the life of the process.
    let p = unsafe { mi_malloc(64) };
    assert!(!p.is_null());
}

#[used]
#[link_section = ".init_array"]
static A_DEPENDENCY_CONSTRUCTOR: extern "C" fn() = allocate_like_a_dependency_constructor;

fn resident_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024
}

fn main() {
    assert_eq!(
        EAGER_AT_FIRST_ALLOCATION.load(Ordering::SeqCst),
        0,
        "arenas were still committed whole when a constructor first allocated"
    );
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if !thp.contains("[madvise]") {
        println!("transparent huge pages are not `madvise` here ({}): the setting was in place before the first allocation; resident memory not checked", thp.trim());
        return;
    }

    let before = resident_mb();
    // ~580 MB in blocks of 1 to 8 MB, each written so that it is resident.
    let blocks: Vec<usize> = std::thread::spawn(|| {
        (0..128)
            .map(|i| {
                let size = (1 + i % 8) * 1024 * 1024;
                // SAFETY: a fresh block of `size` bytes, written within its bounds.
                unsafe {
                    let p = mi_malloc(size).cast::<u8>();
                    assert!(!p.is_null());
                    std::ptr::write_bytes(p, 1, size);
                    p as usize
                }
            })
            .collect()
    })
    .join()
    .unwrap();
    let peak = resident_mb();
    assert!(peak >= before + 400, "{before} MB -> {peak} MB");
    for p in blocks {
        // SAFETY: each block came from mi_malloc and is freed once.
        unsafe { mi_free(p as *mut std::ffi::c_void) };
    }
    // Arena purges wait mimalloc's delay (1 s in v3); collecting after it runs them.
    let mut after = peak;
    for _ in 0..250 {
        // SAFETY: runs the purges that are due (not forced: the app never forces them).
        unsafe { mi_collect(false) };
        after = resident_mb();
        if after < before + 8 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        after < before + 8,
        "freed memory stayed resident: {before} MB before, {peak} MB at peak, {after} MB after"
    );
    println!(
        "memory freed through mimalloc went back: {before} MB, {peak} MB at peak, {after} MB after"
    );
}
