//! Reading the images an import refers to: resolving paths safely, hashing, decoding within
//! limits, and deduplicating by path and by content.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::mapping::ImageSource;
use crate::imaging;
use crate::store::items::images::StoredImage;

#[derive(Debug, Clone)]
pub struct LoadedImage {
    pub hash: String,
    pub width: u32,
    pub height: u32,
    pub name: Option<String>,
}

pub struct ImageLoader {
    root: PathBuf,
    link: bool,
    by_path: HashMap<PathBuf, Result<LoadedImage, String>>,
    by_hash: HashMap<String, LoadedImage>,
    /// Images to write, in first-seen order.
    pub new: Vec<StoredImage>,
    /// The bytes `new` holds.
    new_bytes: usize,
}

impl ImageLoader {
    /// `root` is the folder relative paths resolve against; no image may come from outside it.
    pub fn new(root: &Path, link: bool) -> Result<Self, String> {
        let root = root
            .canonicalize()
            .map_err(|e| format!("image folder {}: {e}", root.display()))?;
        Ok(Self {
            root,
            link,
            by_path: HashMap::new(),
            by_hash: HashMap::new(),
            new: Vec::new(),
            new_bytes: 0,
        })
    }

    /// The images found since the last call, to be written; the loader keeps only what it
    /// needs to recognise them again.
    pub fn take_new(&mut self) -> Vec<StoredImage> {
        self.new_bytes = 0;
        std::mem::take(&mut self.new)
    }

    /// The bytes of the images found since the last [`Self::take_new`].
    pub fn new_bytes(&self) -> usize {
        self.new_bytes
    }

    pub fn load(
        &mut self,
        src: &ImageSource,
        blobs: &[Arc<Vec<u8>>],
    ) -> Result<LoadedImage, String> {
        match src {
            ImageSource::Inline(bytes) => self.add(bytes, None),
            ImageSource::Blob(i, name) => {
                let bytes = blobs.get(*i).ok_or("image bytes missing")?;
                let mut img = self.add(bytes, None)?;
                img.name = name.clone();
                Ok(img)
            }
            ImageSource::Path(p) => {
                if p.starts_with("http://") || p.starts_with("https://") {
                    return Err(format!(
                        "image {p} is a URL; Assay does not fetch images, download them next to the data file"
                    ));
                }
                let joined = self.root.join(p);
                if let Some(hit) = self.by_path.get(&joined) {
                    return hit.clone();
                }
                let res = self.load_path(p, &joined);
                self.by_path.insert(joined, res.clone());
                res
            }
        }
    }

    fn load_path(&mut self, p: &str, joined: &Path) -> Result<LoadedImage, String> {
        let real = joined
            .canonicalize()
            .map_err(|_| format!("image not found: {p}"))?;
        if !real.starts_with(&self.root) {
            return Err(format!(
                "image path {p} leads outside the data folder {}; refused",
                self.root.display()
            ));
        }
        let bytes = std::fs::read(&real).map_err(|e| format!("image {p}: {e}"))?;
        let link = self.link.then(|| real.to_string_lossy().into_owned());
        let mut img = self
            .add(&bytes, link)
            .map_err(|e| format!("image {p}: {e}"))?;
        img.name = real.file_name().map(|n| n.to_string_lossy().into_owned());
        Ok(img)
    }

    fn add(&mut self, bytes: &[u8], link: Option<String>) -> Result<LoadedImage, String> {
        let hash = imaging::sha256_hex(bytes);
        if let Some(hit) = self.by_hash.get(&hash) {
            return Ok(hit.clone());
        }
        let info = imaging::probe(bytes)?;
        let loaded = LoadedImage {
            hash: hash.clone(),
            width: info.width,
            height: info.height,
            name: None,
        };
        if link.is_none() {
            self.new_bytes += bytes.len();
        }
        self.new.push(StoredImage {
            hash: hash.clone(),
            width: info.width,
            height: info.height,
            format: info.format,
            byte_len: bytes.len(),
            data: if link.is_some() {
                None
            } else {
                Some(bytes.to_vec())
            },
            link_path: link,
        });
        self.by_hash.insert(hash, loaded.clone());
        Ok(loaded)
    }
}
