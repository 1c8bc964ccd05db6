//! Content-addressed image storage and the preview cache.

use rusqlite::{params, OptionalExtension, Transaction};

use crate::error::{Error, Result};
use crate::imaging;
use crate::store::Project;

/// An image ready to be stored: bytes kept in the project, or a link to a file left in place.
#[derive(Debug, Clone)]
pub struct StoredImage {
    pub hash: String,
    pub width: u32,
    pub height: u32,
    pub format: &'static str,
    pub byte_len: usize,
    pub data: Option<Vec<u8>>,
    pub link_path: Option<String>,
}

/// Inserts unless present; returns true when the image was new.
pub(crate) fn put(tx: &Transaction<'_>, img: &StoredImage) -> Result<bool> {
    let n = tx.execute(
        "INSERT OR IGNORE INTO images (hash, width, height, format, byte_len, data, link_path)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            img.hash,
            img.width,
            img.height,
            img.format,
            img.byte_len as i64,
            img.data,
            img.link_path
        ],
    )?;
    Ok(n == 1)
}

/// The preview sizes kept in the project (longest side, pixels): list thumbnails, the editor's
/// image, and a zoomed view.
pub const PREVIEW_SIZES: [u32; 3] = [128, 512, 1536];

pub fn preview_size(requested: u32) -> u32 {
    PREVIEW_SIZES
        .into_iter()
        .find(|s| *s >= requested)
        .unwrap_or(PREVIEW_SIZES[PREVIEW_SIZES.len() - 1])
}

impl Project {
    /// The original bytes; a linked image is re-hashed so a changed file is reported, not shown.
    pub fn image_bytes(&self, hash: &str) -> Result<(Vec<u8>, String)> {
        let row: Option<(Option<Vec<u8>>, Option<String>, String)> = self
            .conn
            .query_row(
                "SELECT data, link_path, format FROM images WHERE hash = ?1",
                [hash],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let (data, link, format) = row.ok_or_else(|| Error::NotFound(format!("image {hash}")))?;
        if let Some(d) = data {
            return Ok((d, format));
        }
        let link = link.unwrap_or_default();
        let bytes = std::fs::read(&link).map_err(|e| Error::Image {
            hash: hash.into(),
            message: format!("linked file {link} cannot be read: {e}"),
        })?;
        if imaging::sha256_hex(&bytes) != hash {
            return Err(Error::Image {
                hash: hash.into(),
                message: format!("linked file {link} has changed since import"),
            });
        }
        Ok((bytes, format))
    }

    /// A downscaled preview, made on first request and cached in the project: the smallest of [`PREVIEW_SIZES`] that is at least `max_side` (the largest
    /// when none is), so callers asking for any size never grow the project file beyond three
    /// cached previews per image.
    pub fn image_preview(&self, hash: &str, max_side: u32) -> Result<Vec<u8>> {
        let max_side = preview_size(max_side);
        let cached: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT data FROM image_previews WHERE hash = ?1 AND max_side = ?2",
                params![hash, max_side],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(c) = cached {
            return Ok(c);
        }
        let (bytes, _) = self.image_bytes(hash)?;
        let (preview, _) = imaging::preview(&bytes, max_side).map_err(|message| Error::Image {
            hash: hash.into(),
            message,
        })?;
        // Caching is best effort: while another connection holds the write lock (an import),
        // a reader serves the preview it made rather than waiting.
        match self.conn.execute(
            "INSERT OR REPLACE INTO image_previews (hash, max_side, data) VALUES (?1, ?2, ?3)",
            params![hash, max_side, preview],
        ) {
            Ok(_) => {}
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(preview)
    }

    /// An image as a variant sends it (a crop or a highlight, encoded at the size sent),
    /// cached in the project like previews; `key` names the view, size and encoding.
    pub fn cached_image_view(&self, hash: &str, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self
            .conn
            .query_row(
                "SELECT data FROM image_views WHERE hash = ?1 AND view = ?2",
                params![hash, key],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Keeps a made view; best effort, like previews: while another connection writes, the
    /// view is simply made again next time.
    pub fn put_image_view(
        &self,
        hash: &str,
        key: &str,
        size: (u32, u32),
        data: &[u8],
    ) -> Result<()> {
        match self.conn.execute(
            "INSERT OR REPLACE INTO image_views (hash, view, width, height, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![hash, key, size.0, size.1, data],
        ) {
            Ok(_) => Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    pub fn image_count(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM images", [], |r| r.get(0))?)
    }
}
