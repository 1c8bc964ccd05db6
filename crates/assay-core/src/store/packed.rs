//! Revision contents packed with zstd against a dictionary learnt from the import's own items.
//!
//! An original's JSON repeats its dataset's keys, labels, image hashes and phrasing item after
//! item, and revision 0 of every item was the largest table of a project (40 % of the file at
//! 100,000 items). One item alone compresses poorly (~30 %); against a dictionary made from the
//! first items of the same import it shrinks several times over, and stays readable one row at
//! a time. An import learns its dictionary from its first batch on the reading thread, packs
//! every original there, and the writer stores the dictionary in `content_dicts` with the rows.
//!
//! A packed content is a BLOB: [`FORMAT`], the dictionary's id and the JSON's length as LEB128
//! varints, then a zstd frame. Plain JSON stays TEXT (edits, small imports, files from before
//! schema 29). Every statement reads `revision_json(content)`, a function this module registers
//! on each connection; it returns TEXT either way.

use std::collections::HashMap;
use std::sync::Mutex;

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OptionalExtension};

use crate::error::{Error, Result};

/// The first byte of a packed content; another layout would take another value.
const FORMAT: u8 = 1;
/// Fewer items than this teach a dictionary too little to be worth its own size.
pub(crate) const MIN_SAMPLES: usize = 256;
/// At most this many items are learnt from (one import batch is about this size).
const MAX_SAMPLES: usize = 4096;
const DICT_MAX_BYTES: usize = 112 * 1024;
/// The largest JSON a packed content may claim to hold.
const MAX_JSON_BYTES: u64 = 64 << 20;
/// zstd's default: packing runs on the import's reading thread, which has time to spare; higher
/// levels bought ~3 % at twice the time.
const LEVEL: i32 = 3;

/// Packs the contents of one import with its dictionary.
pub(crate) struct Packer {
    id: i64,
    dict: Vec<u8>,
    compressor: zstd::bulk::Compressor<'static>,
}

impl Packer {
    /// Learns a dictionary from the first contents of an import, to be stored under `id`.
    /// `None` when there are too few to learn from, or the trainer finds nothing to learn (the
    /// contents then stay plain).
    pub(crate) fn learn(id: i64, samples: &[&str]) -> Option<Packer> {
        if samples.len() < MIN_SAMPLES {
            return None;
        }
        let samples = &samples[..samples.len().min(MAX_SAMPLES)];
        let total: usize = samples.iter().map(|s| s.len()).sum();
        let dict = zstd::dict::from_samples(samples, DICT_MAX_BYTES.min(total / 4)).ok()?;
        Self::with_dict(id, dict).ok()
    }

    fn with_dict(id: i64, dict: Vec<u8>) -> Result<Packer> {
        let mut compressor = zstd::bulk::Compressor::with_dictionary(LEVEL, &dict).map_err(io)?;
        // The length is in the header and the dictionary is known from it: the frame carries
        // neither, nor a checksum (SQLite's pages are the unit of integrity here).
        for p in [
            zstd::zstd_safe::CParameter::ContentSizeFlag(false),
            zstd::zstd_safe::CParameter::DictIdFlag(false),
            zstd::zstd_safe::CParameter::ChecksumFlag(false),
        ] {
            compressor.set_parameter(p).map_err(io)?;
        }
        Ok(Packer {
            id,
            dict,
            compressor,
        })
    }

    pub(crate) fn pack(&mut self, json: &str) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(json.len() / 3 + 16);
        out.push(FORMAT);
        put_varint(&mut out, self.id as u64);
        put_varint(&mut out, json.len() as u64);
        out.extend(self.compressor.compress(json.as_bytes()).map_err(io)?);
        Ok(out)
    }
}

/// A dictionary just learnt, for the writer to store before the rows packed with it.
pub(crate) struct NewDict {
    pub(crate) id: i64,
    pub(crate) dict: Vec<u8>,
}

/// One import's packing, on its reading thread: the dictionary is learnt from the first batch
/// and packs every batch after it; an import whose first batch is too small stays plain.
pub(crate) struct ImportPacking {
    id: i64,
    packer: Option<Packer>,
    tried: bool,
}

impl ImportPacking {
    /// `id`: from [`next_dict_id`], taken in the import's transaction.
    pub(crate) fn new(id: i64) -> Self {
        Self {
            id,
            packer: None,
            tried: false,
        }
    }

    /// The packer for a batch, and the dictionary when this batch taught it. `samples` is
    /// called for the first batch only: later ones are not read twice.
    pub(crate) fn for_batch<'a>(
        &mut self,
        samples: impl FnOnce() -> Vec<&'a str>,
    ) -> (Option<&mut Packer>, Option<NewDict>) {
        let mut new_dict = None;
        if !self.tried {
            let samples = samples();
            if samples.is_empty() {
                return (None, None);
            }
            self.tried = true;
            self.packer = Packer::learn(self.id, &samples);
            new_dict = self.packer.as_ref().map(|p| NewDict {
                id: p.id,
                dict: p.dict.clone(),
            });
        }
        (self.packer.as_mut(), new_dict)
    }
}

/// The id the next dictionary of this project takes (inside the import's write transaction, so
/// no other writer takes it meanwhile).
pub(crate) fn next_dict_id(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT coalesce(max(id), 0) + 1 FROM content_dicts",
        [],
        |r| r.get(0),
    )?)
}

pub(crate) fn save_dict(conn: &Connection, dict: &NewDict) -> Result<()> {
    conn.prepare_cached("INSERT INTO content_dicts (id, dict) VALUES (?1, ?2)")?
        .execute(rusqlite::params![dict.id, dict.dict])?;
    Ok(())
}

/// Registers `revision_json(content)` on a connection: a packed content unpacked, plain JSON as
/// it is. Dictionaries are read from `content_dicts` the first time a connection meets them, and
/// kept ready for the connection's life.
pub(crate) fn register(conn: &Connection) -> Result<()> {
    let unpackers: Mutex<HashMap<i64, zstd::bulk::Decompressor<'static>>> = Default::default();
    conn.create_scalar_function(
        "revision_json",
        1,
        // Direct only: never from a view, trigger or generated column, which a file made
        // elsewhere could define so that loading a dictionary calls this function again.
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_DIRECTONLY,
        move |ctx: &Context| -> rusqlite::Result<Value> {
            match ctx.get_raw(0) {
                ValueRef::Blob(b) => {
                    // Not `lock`: a call from inside the dictionary query (above) would wait
                    // on itself forever; it is refused instead.
                    let mut unpackers = match unpackers.try_lock() {
                        Ok(u) => u,
                        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
                        Err(std::sync::TryLockError::WouldBlock) => {
                            return Err(rusqlite::Error::UserFunctionError(
                                "revision_json cannot run inside itself".into(),
                            ))
                        }
                    };
                    unpack(ctx, &mut unpackers, b)
                        .map(Value::Text)
                        .map_err(|e| rusqlite::Error::UserFunctionError(e.into()))
                }
                ValueRef::Text(t) => Ok(Value::Text(String::from_utf8_lossy(t).into_owned())),
                ValueRef::Null => Ok(Value::Null),
                other => Err(rusqlite::Error::UserFunctionError(
                    format!("a revision's content is {:?}, not JSON", other.data_type()).into(),
                )),
            }
        },
    )?;
    Ok(())
}

fn unpack(
    ctx: &Context,
    unpackers: &mut HashMap<i64, zstd::bulk::Decompressor<'static>>,
    packed: &[u8],
) -> Result<String> {
    let bad = || Error::Invalid("a packed revision content is damaged".into());
    let (&format, rest) = packed.split_first().ok_or_else(bad)?;
    if format != FORMAT {
        return Err(Error::Invalid(format!(
            "a revision content is packed in format {format}, newer than this Assay reads"
        )));
    }
    let (dict_id, rest) = get_varint(rest).ok_or_else(bad)?;
    let (len, frame) = get_varint(rest).ok_or_else(bad)?;
    // The length comes from the file, which may be someone else's: it sizes the buffer, so an
    // absurd one is refused before anything is allocated. Images live elsewhere; an item's JSON
    // is kilobytes.
    if len > MAX_JSON_BYTES {
        return Err(bad());
    }
    let dict_id = dict_id as i64;
    let unpacker = match unpackers.entry(dict_id) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            // SAFETY: the connection is only used here, on the thread running this statement,
            // and not kept past this call (rusqlite's warning is about sending it elsewhere).
            let conn = unsafe { ctx.get_connection() }?;
            let dict: Vec<u8> = conn
                .query_row(
                    "SELECT dict FROM content_dicts WHERE id = ?1",
                    [dict_id],
                    |r| r.get(0),
                )
                .optional()?
                .ok_or_else(|| {
                    Error::Invalid(format!(
                        "a revision content needs dictionary {dict_id}, which the project lacks"
                    ))
                })?;
            e.insert(zstd::bulk::Decompressor::with_dictionary(&dict).map_err(io)?)
        }
    };
    let json = unpacker
        .decompress(frame, len as usize)
        .map_err(|_| bad())?;
    if json.len() as u64 != len {
        return Err(bad());
    }
    String::from_utf8(json).map_err(|_| bad())
}

fn io(e: std::io::Error) -> Error {
    Error::Invalid(format!("packing a revision content: {e}"))
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &[u8]) -> Option<(u64, &[u8])> {
    let mut v = 0u64;
    for (i, &byte) in b.iter().enumerate().take(10) {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, &b[i + 1..]));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                format!(
                    r#"{{"answer_format":"short_answer","question":"What is shown at position {i}? 東京{}","answer":"{}","category":"{}","images":[{{"hash":"{:064x}","width":640,"height":480}}]}}"#,
                    i % 7,
                    i * 31 % 97,
                    ["food", "vehicle", "sign"][i % 3],
                    i % 11
                )
            })
            .collect()
    }

    fn conn_with_dicts() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE content_dicts (id INTEGER PRIMARY KEY, dict BLOB NOT NULL);
             CREATE TABLE r (content NOT NULL);",
        )
        .unwrap();
        register(&conn).unwrap();
        conn
    }

    /// What reading the one row of `r` through `revision_json` fails with.
    fn unpack_error(conn: &Connection) -> rusqlite::Error {
        conn.query_row("SELECT revision_json(content) FROM r", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap_err()
    }

    #[test]
    fn packed_contents_read_back_as_the_same_json_and_are_smaller() {
        let texts = samples(1000);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let conn = conn_with_dicts();
        let mut packing = ImportPacking::new(next_dict_id(&conn).unwrap());
        let (packer, dict) = packing.for_batch(|| refs.clone());
        let packer = packer.unwrap();
        save_dict(&conn, &dict.unwrap()).unwrap();
        let (mut plain, mut packed) = (0, 0);
        for t in &texts {
            let p = packer.pack(t).unwrap();
            plain += t.len();
            packed += p.len();
            conn.execute("INSERT INTO r (content) VALUES (?1)", [&p])
                .unwrap();
        }
        // Edits stay plain text next to packed originals.
        conn.execute(
            "INSERT INTO r (content) VALUES ('{\"question\":\"plain\"}')",
            [],
        )
        .unwrap();
        let back: Vec<String> = conn
            .prepare("SELECT revision_json(content) FROM r ORDER BY rowid")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(&back[..1000], &texts[..]);
        assert_eq!(back[1000], "{\"question\":\"plain\"}");
        assert!(packed * 3 < plain, "{packed} bytes packed from {plain}");
        // SQLite's JSON functions read through it.
        let q: String = conn
            .query_row(
                "SELECT json_extract(revision_json(content), '$.category') FROM r WHERE rowid = 2",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(q, "vehicle");
    }

    #[test]
    fn too_few_items_stay_plain() {
        let texts = samples(MIN_SAMPLES - 1);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        assert!(Packer::learn(1, &refs).is_none());
    }

    #[test]
    fn a_damaged_or_orphaned_content_is_an_error_not_garbage() {
        let texts = samples(400);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let conn = conn_with_dicts();
        let mut packer = Packer::learn(1, &refs).unwrap();
        let p = packer.pack(&texts[0]).unwrap();
        // The dictionary was never stored.
        conn.execute("INSERT INTO r (content) VALUES (?1)", [&p])
            .unwrap();
        let err = unpack_error(&conn);
        assert!(err.to_string().contains("dictionary 1"), "{err}");
        save_dict(
            &conn,
            &NewDict {
                id: 1,
                dict: packer.dict.clone(),
            },
        )
        .unwrap();
        let mut cut = p.clone();
        cut.truncate(p.len() - 3);
        conn.execute("DELETE FROM r", []).unwrap();
        conn.execute("INSERT INTO r (content) VALUES (?1)", [&cut])
            .unwrap();
        let err = unpack_error(&conn);
        assert!(err.to_string().contains("damaged"), "{err}");
        // A header claiming an absurd length (a crafted file) is refused, not allocated.
        let mut huge = vec![FORMAT];
        put_varint(&mut huge, 1);
        put_varint(&mut huge, 1 << 62);
        huge.extend_from_slice(&p[3..]);
        conn.execute("DELETE FROM r", []).unwrap();
        conn.execute("INSERT INTO r (content) VALUES (?1)", [&huge])
            .unwrap();
        let err = unpack_error(&conn);
        assert!(err.to_string().contains("damaged"), "{err}");
    }

    #[test]
    fn a_crafted_file_cannot_make_it_call_itself() {
        let texts = samples(400);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE r (content NOT NULL);")
            .unwrap();
        register(&conn).unwrap();
        let mut packer = Packer::learn(1, &refs).unwrap();
        let p = packer.pack(&texts[0]).unwrap();
        conn.execute("INSERT INTO r (content) VALUES (?1)", [&p])
            .unwrap();
        // A "dictionary table" that is a view unpacking a content: loading the dictionary would
        // call the function from inside itself. SQLite refuses it in a view.
        conn.execute_batch(
            "CREATE VIEW content_dicts AS SELECT 1 AS id, revision_json(content) AS dict FROM r;",
        )
        .unwrap();
        let err = unpack_error(&conn);
        assert!(
            err.to_string().contains("unsafe use of revision_json"),
            "{err}"
        );
    }

    #[test]
    fn varints_round_trip() {
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            b.push(0xAA);
            let (back, rest) = get_varint(&b).unwrap();
            assert_eq!((back, rest), (v, &[0xAA][..]));
        }
        assert!(get_varint(&[0x80, 0x80]).is_none());
    }
}
