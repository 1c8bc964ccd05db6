//! The ids an import has read, each with where it was first seen, to name both ends of a
//! duplicate.
//!
//! Held for every item of the file, so kept small: the entries (id and location, the file's
//! name left out of the location) packed end to end in 1 MB chunks, and a hash table of where
//! each entry starts (8 bytes a slot), which finds an id by comparing the id itself, so two ids
//! with one hash are told apart. A `HashMap` of boxed strings took ~107 bytes an item, a third
//! of a million-item import's memory.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;

pub(crate) struct SeenIds<S = RandomState> {
    file: String,
    hasher: S,
    /// Where each entry starts in `packed` (chunk * CHUNK + offset), found by its id's hash.
    starts: HashTable<u64>,
    /// The entries, end to end in chunks of [`CHUNK`] bytes (a growing `Vec` would copy
    /// itself and, doubled, hold up to twice what it needs).
    packed: Vec<Vec<u8>>,
}

const CHUNK: usize = 1 << 20;

impl SeenIds {
    /// `file` is the name nearly every location starts with.
    pub(crate) fn new(file: &str) -> Self {
        Self::with_hasher(file, RandomState::new())
    }
}

impl<S: BuildHasher> SeenIds<S> {
    fn with_hasher(file: &str, hasher: S) -> Self {
        Self {
            file: file.to_string(),
            hasher,
            starts: HashTable::new(),
            packed: Vec::new(),
        }
    }

    /// Where `id` was first seen, if it was; otherwise records it as seen at `location`.
    pub(crate) fn first_location_or_insert(&mut self, id: &str, location: &str) -> Option<String> {
        let hash = self.hasher.hash_one(id.as_bytes());
        let packed = &self.packed;
        if let Some(&at) = self
            .starts
            .find(hash, |&at| split(packed, at).0 == id.as_bytes())
        {
            return Some(self.location(at));
        }
        let at = self.push(id, location);
        let (packed, hasher) = (&self.packed, &self.hasher);
        self.starts
            .insert_unique(hash, at, |&at| hasher.hash_one(split(packed, at).0));
        None
    }

    /// Appends an entry: the id's length and the id, then the location's length and the
    /// location (its file's name left out, a leading 0 byte, never in a path, standing for it).
    /// Returns where it starts.
    fn push(&mut self, id: &str, location: &str) -> u64 {
        let (marker, rest): (&[u8], &str) = match location.strip_prefix(self.file.as_str()) {
            Some(rest) => (&[0], rest),
            None => (&[], location),
        };
        let mut entry = Vec::with_capacity(id.len() + rest.len() + 4);
        put_len(&mut entry, id.len());
        entry.extend_from_slice(id.as_bytes());
        put_len(&mut entry, marker.len() + rest.len());
        entry.extend_from_slice(marker);
        entry.extend_from_slice(rest.as_bytes());
        // An entry longer than a chunk gets a chunk of its own, as long as it; the next entry
        // starts a new chunk, so a position stays chunk * CHUNK + offset.
        if self
            .packed
            .last()
            .is_none_or(|c| c.len() + entry.len() > CHUNK)
        {
            self.packed.push(Vec::with_capacity(CHUNK.max(entry.len())));
        }
        let chunk = self.packed.len() - 1;
        let last = &mut self.packed[chunk];
        let at = (chunk * CHUNK + last.len()) as u64;
        last.extend_from_slice(&entry);
        at
    }

    fn location(&self, at: u64) -> String {
        let rest = String::from_utf8_lossy(split(&self.packed, at).1);
        match rest.strip_prefix('\0') {
            Some(suffix) => format!("{}{suffix}", self.file),
            None => rest.into_owned(),
        }
    }
}

/// The id and location bytes of the entry at `at`.
fn split(packed: &[Vec<u8>], at: u64) -> (&[u8], &[u8]) {
    let chunk = &packed[at as usize / CHUNK];
    let mut rest = &chunk[at as usize % CHUNK..];
    let id_len = take_len(&mut rest);
    let (id, mut rest) = rest.split_at(id_len);
    let loc_len = take_len(&mut rest);
    (id, &rest[..loc_len])
}

fn put_len(out: &mut Vec<u8>, mut len: usize) {
    loop {
        let low = (len & 0x7f) as u8;
        len >>= 7;
        if len == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

fn take_len(bytes: &mut &[u8]) -> usize {
    let (mut len, mut shift) = (0usize, 0);
    while let Some((&b, rest)) = bytes.split_first() {
        *bytes = rest;
        len |= usize::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_sighting_names_the_first_place() {
        let mut seen = SeenIds::new("d.jsonl");
        assert_eq!(seen.first_location_or_insert("q1", "d.jsonl:1"), None);
        assert_eq!(seen.first_location_or_insert("q2", "d.jsonl:2"), None);
        assert_eq!(seen.first_location_or_insert("", "other.csv:9"), None);
        assert_eq!(
            seen.first_location_or_insert("q1", "d.jsonl:3").as_deref(),
            Some("d.jsonl:1")
        );
        assert_eq!(
            seen.first_location_or_insert("", "d.jsonl:4").as_deref(),
            Some("other.csv:9")
        );
        assert_eq!(seen.first_location_or_insert("q10", "d.jsonl:5"), None);
        assert_eq!(seen.first_location_or_insert("q", "d.jsonl:6"), None);
    }

    /// Every id hashes to 7.
    #[derive(Clone, Copy)]
    struct OneHash;
    struct Seven;
    impl std::hash::Hasher for Seven {
        fn finish(&self) -> u64 {
            7
        }
        fn write(&mut self, _: &[u8]) {}
    }
    impl BuildHasher for OneHash {
        type Hasher = Seven;
        fn build_hasher(&self) -> Seven {
            Seven
        }
    }

    #[test]
    fn ids_that_share_a_hash_are_told_apart_by_the_ids_themselves() {
        let mut seen = SeenIds::with_hasher("f", OneHash);
        let long = "x".repeat(300);
        let ids = ["a", "b", "ab", "a\u{0}b", "日本", long.as_str()];
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(
                seen.first_location_or_insert(id, &format!("f:{i}")),
                None,
                "{id:?}"
            );
        }
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(
                seen.first_location_or_insert(id, "f:99").as_deref(),
                Some(format!("f:{i}").as_str()),
                "{id:?}"
            );
        }
        assert_eq!(seen.starts.len(), ids.len());
    }

    #[test]
    fn entries_fill_chunks_and_one_longer_than_a_chunk_has_its_own() {
        let mut seen = SeenIds::new("big.jsonl");
        let huge = "h".repeat(CHUNK + 10);
        let n = 200_000;
        for i in 0..n {
            let id = if i == 1000 {
                huge.clone()
            } else {
                format!("id-{i}")
            };
            assert_eq!(
                seen.first_location_or_insert(&id, &format!("big.jsonl:{}", i + 1)),
                None
            );
        }
        assert!(seen.packed.len() > 3, "{} chunks", seen.packed.len());
        for i in [0, 999, 1000, 1001, n - 1] {
            let id = if i == 1000 {
                huge.clone()
            } else {
                format!("id-{i}")
            };
            assert_eq!(
                seen.first_location_or_insert(&id, "elsewhere").as_deref(),
                Some(format!("big.jsonl:{}", i + 1).as_str())
            );
        }
    }
}
