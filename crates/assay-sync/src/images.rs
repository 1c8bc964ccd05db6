//! Images from the team, by content hash: the bytes must hash to the key they are fetched by
//! (the team checks this on insert too), and the size is read from the bytes here, never taken
//! from the row. A bad image is reported and skipped, never cached.

use assay_core::store::items::images::StoredImage;
use assay_core::Project;
use postgres::Client;

use crate::connect::connect_with;
use crate::sync::team_url;
use crate::{Result, SyncError};

/// What fetching every missing image did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FetchReport {
    pub fetched: usize,
    /// Images whose bytes did not match their hash or could not be read (hash, why).
    pub bad: Vec<(String, String)>,
}

fn image_format(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let format = match reader.format()? {
        image::ImageFormat::Png => "png",
        image::ImageFormat::Jpeg => "jpeg",
        image::ImageFormat::WebP => "webp",
        image::ImageFormat::Gif => "gif",
        _ => return None,
    };
    let (w, h) = reader.into_dimensions().ok()?;
    Some((format, w, h))
}

/// The pixel size of an image's bytes (0 x 0 when unreadable), for publishing.
pub(crate) fn image_size(bytes: &[u8]) -> (i32, i32) {
    image_format(bytes).map_or((0, 0), |(_, w, h)| (w as i32, h as i32))
}

/// Copies one image from the team into the replica. Ok(false) when the team has no such image.
fn fetch_one(db: &mut Client, project: &mut Project, hash: &str) -> Result<bool> {
    let Some(r) = db.query_opt("SELECT bytes FROM images WHERE hash = $1", &[&hash])? else {
        return Ok(false);
    };
    store_image(project, hash, r.get(0))
}

/// Keeps an image fetched from the team (the database or the service) in the replica: only if
/// its bytes hash to the key it was fetched by and are an image this replica can read.
pub(crate) fn store_image(project: &mut Project, hash: &str, bytes: Vec<u8>) -> Result<bool> {
    if assay_core::imaging::sha256_hex(&bytes) != hash {
        return Err(SyncError::Invalid(format!(
            "image {hash}: the team's bytes do not match their hash"
        )));
    }
    let (format, width, height) = image_format(&bytes).ok_or_else(|| {
        SyncError::Invalid(format!("image {hash}: not an image this replica can read"))
    })?;
    project.put_image_bytes(&StoredImage {
        hash: hash.to_string(),
        width,
        height,
        format,
        byte_len: bytes.len(),
        data: Some(bytes),
        link_path: None,
    })?;
    Ok(true)
}

/// Fetches one image by its hash from the team database into the replica (on first view).
pub fn fetch_image(project: &mut Project, hash: &str, password: Option<&str>) -> Result<bool> {
    ImageSource::new(&team_url(project)?, password).fetch(project, hash)
}

/// One connection to the team kept for fetching images on first view, opened when first needed
/// and again after a failure (a failure is returned, never remembered as "no such image").
pub struct ImageSource {
    url: String,
    password: Option<String>,
    db: Option<Client>,
}

impl ImageSource {
    pub fn new(url: &str, password: Option<&str>) -> Self {
        Self {
            url: url.to_string(),
            password: password.map(str::to_string),
            db: None,
        }
    }

    /// Whether this source reads from the team database at `url`.
    pub fn serves(&self, url: &str) -> bool {
        self.url == url
    }

    pub fn fetch(&mut self, project: &mut Project, hash: &str) -> Result<bool> {
        if crate::service::is_service_url(&self.url) {
            return crate::service::fetch_image(project, hash);
        }
        let db = match self.db.as_mut() {
            Some(db) if !db.is_closed() => db,
            _ => self
                .db
                .insert(connect_with(&self.url, self.password.as_deref())?),
        };
        let got = fetch_one(db, project, hash);
        if matches!(got, Err(SyncError::Db(_))) {
            self.db = None;
        }
        got
    }
}

/// Fetches every image the replica does not have yet (to work offline).
pub fn fetch_images(project: &mut Project, password: Option<&str>) -> Result<FetchReport> {
    let url = team_url(project)?;
    if crate::service::is_service_url(&url) {
        return crate::service::fetch_images(project);
    }
    fetch_images_at(&url, password, project)
}

/// `fetch_images` from `url` (a URL that may carry its password, as given to `join`), on one
/// connection; a bad image is skipped and reported.
pub fn fetch_images_at(
    url: &str,
    password: Option<&str>,
    project: &mut Project,
) -> Result<FetchReport> {
    let mut db = connect_with(url, password)?;
    let have: std::collections::HashSet<String> = project.image_hashes()?.into_iter().collect();
    let mut report = FetchReport::default();
    for row in db.query("SELECT hash FROM images ORDER BY hash", &[])? {
        let hash: String = row.get(0);
        if have.contains(&hash) {
            continue;
        }
        match fetch_one(&mut db, project, &hash) {
            Ok(true) => report.fetched += 1,
            Ok(false) => {}
            Err(SyncError::Invalid(why)) => report.bad.push((hash, why)),
            Err(e) => return Err(e),
        }
    }
    Ok(report)
}
