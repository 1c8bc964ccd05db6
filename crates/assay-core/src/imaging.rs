//! Image decoding with limits, hashing and previews. Every decode goes through here so a
//! decompression bomb or a truncated file becomes a clear error instead of an abort.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits};
use sha2::{Digest, Sha256};

/// Largest side accepted (pixels); larger images are refused as likely bombs.
pub const MAX_SIDE: u32 = 20_000;
/// Largest decode allocation (bytes).
pub const MAX_ALLOC: u64 = 512 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct ImageInfo {
    pub width: u32,
    pub height: u32,
    pub format: &'static str,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn limits() -> Limits {
    let mut l = Limits::default();
    l.max_image_width = Some(MAX_SIDE);
    l.max_image_height = Some(MAX_SIDE);
    l.max_alloc = Some(MAX_ALLOC);
    l
}

fn reader(bytes: &[u8]) -> Result<ImageReader<Cursor<&[u8]>>, String> {
    let mut r = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    if r.format().is_none() {
        return Err("not a recognised image (PNG, JPEG, WebP or GIF)".into());
    }
    r.limits(limits());
    Ok(r)
}

fn format_name(f: Option<ImageFormat>) -> &'static str {
    match f {
        Some(ImageFormat::Png) => "png",
        Some(ImageFormat::Jpeg) => "jpeg",
        Some(ImageFormat::WebP) => "webp",
        Some(ImageFormat::Gif) => "gif",
        _ => "unknown",
    }
}

/// Reads the size from the header, then decodes fully (within limits) so a truncated or
/// corrupt file is caught at import, not when an annotator opens the item.
pub fn probe(bytes: &[u8]) -> Result<ImageInfo, String> {
    let r = reader(bytes)?;
    let format = format_name(r.format());
    let (width, height) = r.into_dimensions().map_err(describe)?;
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(format!(
            "{width}x{height} exceeds the {MAX_SIDE}px limit (possible decompression bomb)"
        ));
    }
    reader(bytes)?.decode().map_err(describe)?;
    Ok(ImageInfo {
        width,
        height,
        format,
    })
}

fn describe(e: image::ImageError) -> String {
    match e {
        image::ImageError::Limits(l) => format!("refused by decode limits ({l})"),
        other => format!("cannot decode: {other}"),
    }
}

/// Decodes an image within the same size and allocation limits as import, so nothing that
/// reads stored images (previews, the images sent to models) can be made to allocate more.
pub fn decode(bytes: &[u8]) -> Result<image::DynamicImage, String> {
    reader(bytes)?.decode().map_err(describe)
}

/// A downscaled JPEG (or PNG for images with alpha) whose longest side is at most `max_side`.
pub fn preview(bytes: &[u8], max_side: u32) -> Result<(Vec<u8>, &'static str), String> {
    let img = reader(bytes)?.decode().map_err(describe)?;
    let small = if img.width().max(img.height()) > max_side {
        img.thumbnail(max_side, max_side)
    } else {
        img
    };
    let mut out = Cursor::new(Vec::new());
    if small.color().has_alpha() {
        small
            .write_to(&mut out, ImageFormat::Png)
            .map_err(|e| e.to_string())?;
        Ok((out.into_inner(), "png"))
    } else {
        small
            .to_rgb8()
            .write_to(&mut out, ImageFormat::Jpeg)
            .map_err(|e| e.to_string())?;
        Ok((out.into_inner(), "jpeg"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_pixel(w, h, image::Rgb([10, 200, 30]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn probe_reads_size_and_format() {
        let info = probe(&png(40, 30)).unwrap();
        assert_eq!((info.width, info.height, info.format), (40, 30, "png"));
    }

    #[test]
    fn truncated_file_is_an_error() {
        let bytes = png(64, 64);
        let err = probe(&bytes[..bytes.len() / 2]).unwrap_err();
        assert!(err.contains("decode"), "{err}");
    }

    #[test]
    fn oversized_header_is_refused_before_decoding() {
        // A PNG header claiming 50000x50000 pixels: a classic decompression bomb shape.
        let mut bytes = png(1, 1);
        bytes[16..20].copy_from_slice(&50_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&50_000u32.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = probe(&bytes).unwrap_err();
        assert!(err.contains("limit"), "{err}");
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for b in data {
            crc ^= *b as u32;
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn text_is_not_an_image() {
        assert!(probe(b"hello world").is_err());
    }

    #[test]
    fn preview_fits_max_side() {
        let (bytes, fmt) = preview(&png(400, 200), 100).unwrap();
        assert_eq!(fmt, "jpeg");
        let info = probe(&bytes).unwrap();
        assert_eq!((info.width, info.height), (100, 50));
    }
}
