//! Pixel drawing for the sample images.

use image::{Rgb, RgbImage};

pub fn fill_rect(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, c: [u8; 3]) {
    for yy in y..(y + h).min(img.height()) {
        for xx in x..(x + w).min(img.width()) {
            img.put_pixel(xx, yy, Rgb(c));
        }
    }
}

pub fn stroke_rect(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, t: u32, c: [u8; 3]) {
    fill_rect(img, x, y, w, t, c);
    fill_rect(img, x, y + h - t, w, t, c);
    fill_rect(img, x, y, t, h, c);
    fill_rect(img, x + w - t, y, t, h, c);
}

pub fn fill_circle(img: &mut RgbImage, cx: i32, cy: i32, r: i32, c: [u8; 3]) {
    for y in (cy - r).max(0)..(cy + r).min(img.height() as i32) {
        for x in (cx - r).max(0)..(cx + r).min(img.width() as i32) {
            if (x - cx).pow(2) + (y - cy).pow(2) <= r * r {
                img.put_pixel(x as u32, y as u32, Rgb(c));
            }
        }
    }
}

pub fn canvas(w: u32, h: u32, c: [u8; 3]) -> RgbImage {
    RgbImage::from_pixel(w, h, Rgb(c))
}
