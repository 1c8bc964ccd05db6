// Prevents an extra console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

// mimalloc: glibc's malloc made the import's two threads (reading and writing) wait on each
// other's arena locks, ~18,000 context switches per 100,000 items; 5.4 s -> 3.9 s
// (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
assay_core::give_freed_memory_back_at_load!();

fn main() {
    // Before any thread exists: SQLite is configured only while nothing else uses it.
    assay_core::store::configure_sqlite();
    assay_app::run();
}
