//! Images as the model receives them: resized to the size `scorers::grounding::sent_size`
//! gives (the size the prompt states and the grounding scorer maps boxes back from), encoded as
//! JPEG or PNG, sent as data URLs. Encoded copies are kept per (hash, view, size, encoding) for
//! the engine's life, and a variant's views also in the project; the bytes come from the
//! engine's reader connection.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex};

use base64::Engine as _;

use crate::model::{ImageEncoding, ImagePolicy};
use assay_core::imaging::ImageView;
use assay_core::Project;

/// (image hash, view, size sent, PNG?).
type EncodedKey = (String, Option<String>, (u32, u32), bool);

#[derive(Default)]
pub struct ImageEncoder {
    cache: Mutex<HashMap<EncodedKey, Arc<String>>>,
}

const MAX_CACHED: usize = 512;

impl ImageEncoder {
    /// The image (through its variant's view, when it has one) as a data URL at `sent` size.
    /// A view already made at this size and encoding comes from the project's cache. Reading
    /// holds the store's connection briefly; decoding (through core's limited decoder),
    /// cropping or drawing, resizing and encoding run on a blocking thread so the async
    /// workers keep serving requests.
    pub async fn data_url(
        &self,
        hash: &str,
        view: Option<&ImageView>,
        policy: &ImagePolicy,
        sent: (u32, u32),
        store: &Mutex<Project>,
    ) -> Result<Arc<String>, String> {
        let png = policy.encoding == ImageEncoding::Png;
        let key = (hash.to_string(), view.map(|v| v.key()), sent, png);
        if let Some(hit) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        let mime = if png { "image/png" } else { "image/jpeg" };
        let view_key = view.map(|v| {
            format!(
                "{}@{}x{}.{}",
                v.key(),
                sent.0,
                sent.1,
                if png { "png" } else { "jpeg" }
            )
        });
        let stored = match &view_key {
            Some(k) => store
                .lock()
                .map_err(|_| "image reader poisoned".to_string())?
                .cached_image_view(hash, k)
                .map_err(|e| e.to_string())?,
            None => None,
        };
        let bytes = match stored {
            Some(b) => b,
            None => {
                let original = store
                    .lock()
                    .map_err(|_| "image reader poisoned".to_string())?
                    .image_bytes(hash)
                    .map(|(b, _)| b)
                    .map_err(|e| e.to_string())?;
                let encoding = policy.encoding;
                let label = hash.to_string();
                let v = view.cloned();
                let made = tokio::task::spawn_blocking(move || {
                    encode(&original, v.as_ref(), sent, encoding)
                })
                .await
                .map_err(|e| format!("image {label}: {e}"))?
                .map_err(|e| format!("image {label}: {e}"))?;
                if let Some(k) = &view_key {
                    if let Ok(p) = store.lock() {
                        p.put_image_view(hash, k, sent, &made)
                            .map_err(|e| e.to_string())?;
                    }
                }
                made
            }
        };
        let url = Arc::new(format!(
            "data:{mime};base64,{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
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

fn encode(
    bytes: &[u8],
    view: Option<&ImageView>,
    sent: (u32, u32),
    encoding: ImageEncoding,
) -> Result<Vec<u8>, String> {
    let img = assay_core::imaging::decode(bytes)?;
    let img = match view {
        Some(v) => v.render(&img, sent),
        None if (img.width(), img.height()) != sent => {
            img.resize_exact(sent.0, sent.1, image::imageops::FilterType::Triangle)
        }
        None => img,
    };
    let mut out = Cursor::new(Vec::new());
    match encoding {
        ImageEncoding::Png => img
            .write_to(&mut out, image::ImageFormat::Png)
            .map_err(|e| e.to_string())?,
        ImageEncoding::Jpeg => img
            .to_rgb8()
            .write_to(&mut out, image::ImageFormat::Jpeg)
            .map_err(|e| e.to_string())?,
    }
    Ok(out.into_inner())
}
