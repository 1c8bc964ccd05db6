//! Images as the model receives them: resized to the size `scorers::grounding::sent_size`
//! gives (the size the prompt states and the grounding scorer maps boxes back from), encoded as
//! JPEG or PNG, sent as data URLs. Encoded copies are kept per (hash, policy) for the engine's life;
//! the bytes come from the engine's reader connection.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex};

use base64::Engine as _;

use crate::model::{ImageEncoding, ImagePolicy};

/// (image hash, size sent, PNG?).
type EncodedKey = (String, (u32, u32), bool);

#[derive(Default)]
pub struct ImageEncoder {
    cache: Mutex<HashMap<EncodedKey, Arc<String>>>,
}

const MAX_CACHED: usize = 512;

impl ImageEncoder {
    pub fn data_url(
        &self,
        hash: &str,
        policy: &ImagePolicy,
        sent: (u32, u32),
        load: impl FnOnce(&str) -> Result<Vec<u8>, String>,
    ) -> Result<Arc<String>, String> {
        let key = (
            hash.to_string(),
            sent,
            policy.encoding == ImageEncoding::Png,
        );
        if let Some(hit) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        // Only the read holds the caller's connection; decoding and encoding run outside it.
        let bytes = load(hash)?;
        let img = image::load_from_memory(&bytes).map_err(|e| format!("image {hash}: {e}"))?;
        let img = if (img.width(), img.height()) != sent {
            img.resize_exact(sent.0, sent.1, image::imageops::FilterType::Triangle)
        } else {
            img
        };
        let mut out = Cursor::new(Vec::new());
        let mime = match policy.encoding {
            ImageEncoding::Png => {
                img.write_to(&mut out, image::ImageFormat::Png)
                    .map_err(|e| e.to_string())?;
                "image/png"
            }
            ImageEncoding::Jpeg => {
                img.to_rgb8()
                    .write_to(&mut out, image::ImageFormat::Jpeg)
                    .map_err(|e| e.to_string())?;
                "image/jpeg"
            }
        };
        let url = Arc::new(format!(
            "data:{mime};base64,{}",
            base64::engine::general_purpose::STANDARD.encode(out.into_inner())
        ));
        if let Ok(mut c) = self.cache.lock() {
            if c.len() >= MAX_CACHED {
                c.clear();
            }
            c.insert(key, url.clone());
        }
        Ok(url)
    }
}
