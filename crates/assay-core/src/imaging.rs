//! Image decoding with limits, hashing and previews. Every decode goes through here so a
//! decompression bomb or a truncated file becomes a clear error instead of an abort.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits};
use sha2::{Digest, Sha256};

use crate::model::BBox;

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

/// How an image is changed before a model sees it (CRAG-MM-Diagnostics' input variants),
/// described in the original image's pixels so one view serves every model and size policy.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageView {
    /// The target boxes outlined in green, as `evaluate.py`'s object-identification tasks draw
    /// them (`cv2.rectangle`, colour (0, 255, 0), 8 pixels on the 960 x 1280 frame it sends).
    Highlight { boxes: Vec<BBox> },
    /// The image cut to this rectangle (x, y, width, height in pixels): the "GT crop".
    Crop {
        x: u32,
        y: u32,
        width: u32,
        height: u32,
    },
    /// The image resized to `frame` first, then cut to this rectangle of the frame: the GT crop
    /// as CRAG-MM-Diagnostics' ablation makes it (`image.resize((960, 1280))`, then
    /// `image.crop(resized_bbox)`, whose corners Pillow rounds half to even).
    FrameCrop {
        frame: (u32, u32),
        x: u32,
        y: u32,
        width: u32,
        height: u32,
    },
}

/// Border thickness CRAG-MM-Diagnostics draws on the 1280-pixel-tall frame it sends.
pub const HIGHLIGHT_THICKNESS_AT_1280: f64 = 8.0;

fn union(boxes: &[BBox]) -> Option<BBox> {
    let first = boxes.first()?;
    Some(boxes.iter().fold(*first, |a, b| BBox {
        x_min: a.x_min.min(b.x_min),
        y_min: a.y_min.min(b.y_min),
        x_max: a.x_max.max(b.x_max),
        y_max: a.y_max.max(b.y_max),
    }))
}

impl ImageView {
    pub fn highlight(boxes: &[BBox]) -> Self {
        Self::Highlight {
            boxes: boxes.to_vec(),
        }
    }

    /// The crop at the union of `boxes` (no margin, as the official ablation crops), its
    /// corners widened to whole pixels and kept inside the image; None when the boxes do not
    /// overlap the image.
    pub fn crop(boxes: &[BBox], width: u32, height: u32) -> Option<Self> {
        let u = union(boxes)?;
        let x0 = u.x_min.floor().clamp(0.0, width as f64) as u32;
        let y0 = u.y_min.floor().clamp(0.0, height as f64) as u32;
        let x1 = u.x_max.ceil().clamp(0.0, width as f64) as u32;
        let y1 = u.y_max.ceil().clamp(0.0, height as f64) as u32;
        (x1 > x0 && y1 > y0).then_some(Self::Crop {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }

    /// The crop at the union of `boxes` of a `width` x `height` image once resized to
    /// `frame`: each corner scaled as `convert_bbox_to_resized_format` scales it and rounded
    /// half to even as Pillow's `crop` rounds it, kept inside the frame (Pillow would pad a
    /// box past the edge with black). None when nothing of the frame is left.
    pub fn crop_in_frame(
        boxes: &[BBox],
        width: u32,
        height: u32,
        frame: (u32, u32),
    ) -> Option<Self> {
        let u = union(boxes)?;
        let sx = frame.0 as f64 / width.max(1) as f64;
        let sy = frame.1 as f64 / height.max(1) as f64;
        let at = |v: f64, s: f64, max: u32| (v * s).round_ties_even().clamp(0.0, max as f64) as u32;
        let (x0, y0) = (at(u.x_min, sx, frame.0), at(u.y_min, sy, frame.1));
        let (x1, y1) = (at(u.x_max, sx, frame.0), at(u.y_max, sy, frame.1));
        (x1 > x0 && y1 > y0).then_some(Self::FrameCrop {
            frame,
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }

    /// The size of the image this view makes from one of `width` x `height`, before resizing.
    pub fn size(&self, width: u32, height: u32) -> (u32, u32) {
        match self {
            Self::Highlight { .. } => (width, height),
            Self::Crop { width, height, .. } | Self::FrameCrop { width, height, .. } => {
                (*width, *height)
            }
        }
    }

    /// A stable text naming the view: part of cache keys and of the stored request.
    pub fn key(&self) -> String {
        match self {
            Self::Highlight { boxes } => {
                let b: Vec<String> = boxes
                    .iter()
                    .map(|b| format!("{},{},{},{}", b.x_min, b.y_min, b.x_max, b.y_max))
                    .collect();
                format!("highlight:{}", b.join(";"))
            }
            Self::Crop {
                x,
                y,
                width,
                height,
            } => format!("crop:{x},{y},{width},{height}"),
            Self::FrameCrop {
                frame,
                x,
                y,
                width,
                height,
            } => format!("framecrop:{}x{}:{x},{y},{width},{height}", frame.0, frame.1),
        }
    }

    /// The image as sent at `sent` size: a crop is cut from the original, then resized; a
    /// highlight is drawn after resizing, with the box scaled per axis into the sent frame and
    /// a line `round(8 x longest sent side / 1280)` pixels wide, as `evaluate.py` draws 8 on
    /// its 960 x 1280 frame (`int()` of the box's corners there).
    pub fn render(&self, img: &image::DynamicImage, sent: (u32, u32)) -> image::DynamicImage {
        let resize = |i: image::DynamicImage| {
            if (i.width(), i.height()) == sent {
                i
            } else {
                i.resize_exact(sent.0, sent.1, image::imageops::FilterType::Triangle)
            }
        };
        match self {
            Self::Crop {
                x,
                y,
                width,
                height,
            } => resize(img.crop_imm(*x, *y, *width, *height)),
            Self::FrameCrop {
                frame,
                x,
                y,
                width,
                height,
            } => {
                // Pillow's `resize` is bicubic by default.
                let framed = if (img.width(), img.height()) == *frame {
                    img.clone()
                } else {
                    img.resize_exact(frame.0, frame.1, image::imageops::FilterType::CatmullRom)
                };
                resize(framed.crop_imm(*x, *y, *width, *height))
            }
            Self::Highlight { boxes } => {
                let (sx, sy) = (
                    sent.0 as f64 / img.width().max(1) as f64,
                    sent.1 as f64 / img.height().max(1) as f64,
                );
                let mut rgb = resize(img.clone()).to_rgb8();
                let t = (HIGHLIGHT_THICKNESS_AT_1280 * sent.0.max(sent.1) as f64 / 1280.0).round();
                for b in boxes {
                    draw_border(&mut rgb, &b.scaled(sx, sy), (t as u32).max(1));
                }
                image::DynamicImage::ImageRgb8(rgb)
            }
        }
    }
}

/// A rectangle outline `thickness` pixels wide centred on the box's edges, as OpenCV draws
/// one (corners truncated to whole pixels, as `map(int, box)` does), clipped to the image.
fn draw_border(img: &mut image::RgbImage, b: &BBox, thickness: u32) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let half = thickness as i64 / 2;
    let (x0, y0) = (b.x_min.trunc() as i64, b.y_min.trunc() as i64);
    let (x1, y1) = (b.x_max.trunc() as i64, b.y_max.trunc() as i64);
    let green = image::Rgb([0u8, 255, 0]);
    let mut fill = |xa: i64, ya: i64, xb: i64, yb: i64| {
        for y in ya.max(0)..=yb.min(h - 1) {
            for x in xa.max(0)..=xb.min(w - 1) {
                img.put_pixel(x as u32, y as u32, green);
            }
        }
    };
    let (lo, hi) = (half, thickness as i64 - 1 - half);
    fill(x0 - lo, y0 - lo, x1 + hi, y0 + hi);
    fill(x0 - lo, y1 - lo, x1 + hi, y1 + hi);
    fill(x0 - lo, y0 - lo, x0 + hi, y1 + hi);
    fill(x1 - lo, y0 - lo, x1 + hi, y1 + hi);
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

    fn bbox(x0: f64, y0: f64, x1: f64, y1: f64) -> BBox {
        BBox {
            x_min: x0,
            y_min: y0,
            x_max: x1,
            y_max: y1,
        }
    }

    #[test]
    fn crop_cuts_at_the_box_inside_the_image() {
        let v = ImageView::crop(&[bbox(100.5, 200.0, 300.0, 299.2)], 1000, 1000).unwrap();
        assert_eq!(
            v,
            ImageView::Crop {
                x: 100,
                y: 200,
                width: 200,
                height: 100
            }
        );
        // Past the image's edge the box is cut off, never padded.
        let edge = ImageView::crop(&[bbox(-5.0, 0.0, 50.0, 48.0)], 60, 40).unwrap();
        assert_eq!(edge.size(60, 40), (50, 40));
        assert!(ImageView::crop(&[bbox(70.0, 0.0, 90.0, 10.0)], 60, 40).is_none());
        let img = decode(&png(1000, 1000)).unwrap();
        let out = v.render(&img, (120, 60));
        assert_eq!((out.width(), out.height()), (120, 60));
    }

    #[test]
    fn a_crop_in_the_crag_frame_rounds_its_corners_half_to_even_after_scaling() {
        // 3024 x 4032 to 960 x 1280: x scales by 960/3024, so 643 -> 204.126..., 2854 ->
        // 906.03...; y by 1280/4032: 1610 -> 511.11..., 2388 -> 758.09...
        let v = ImageView::crop_in_frame(
            &[bbox(643.0, 1610.0, 2854.0, 2388.0)],
            3024,
            4032,
            (960, 1280),
        )
        .unwrap();
        assert_eq!(
            v,
            ImageView::FrameCrop {
                frame: (960, 1280),
                x: 204,
                y: 511,
                width: 702,
                height: 247
            }
        );
        // A corner at exactly .5 goes to the even neighbour, as Python's round does.
        let half = ImageView::crop_in_frame(&[bbox(2.5, 1.5, 5.5, 4.0)], 10, 10, (10, 10));
        assert_eq!(
            half.map(|v| v.key()),
            Some("framecrop:10x10:2,2,4,2".to_string())
        );
        let img = decode(&png(3024, 4032)).unwrap();
        let out = v.render(&img, (702, 247));
        assert_eq!((out.width(), out.height()), (702, 247));
    }

    #[test]
    fn highlight_draws_eight_pixels_on_the_crag_frame_whatever_the_original() {
        // A landscape photo sent at 960 x 1280 (aspect not kept, as CRAG-MM does): the line is
        // 8 pixels on both axes, centred on the box's edges in the sent frame.
        let v = ImageView::highlight(&[bbox(400.0, 300.0, 1600.0, 900.0)]);
        let img = decode(&png(2000, 1500)).unwrap();
        let out = v.render(&img, (960, 1280)).to_rgb8();
        let green = image::Rgb([0, 255, 0]);
        // Left edge at x = 400 * 960/2000 = 192: 4 pixels outside, 4 inside.
        for x in 188..196 {
            assert_eq!(*out.get_pixel(x, 500), green, "x={x}");
        }
        assert_ne!(*out.get_pixel(187, 500), green);
        assert_ne!(*out.get_pixel(196, 500), green);
        // Top edge at y = 300 * 1280/1500 = 256.
        for y in 252..260 {
            assert_eq!(*out.get_pixel(400, y), green, "y={y}");
        }
        assert_ne!(*out.get_pixel(400, 260), green);
        assert_ne!(*out.get_pixel(500, 500), green);
        assert_eq!(v.key(), "highlight:400,300,1600,900");
    }

    #[test]
    fn preview_fits_max_side() {
        let (bytes, fmt) = preview(&png(400, 200), 100).unwrap();
        assert_eq!(fmt, "jpeg");
        let info = probe(&bytes).unwrap();
        assert_eq!((info.width, info.height), (100, 50));
    }
}
