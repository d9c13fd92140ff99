//! Pictures of the framebuffer: crop to a region, shrink by a scale (box filter, so text
//! stays legible), encode as an RGB PNG. Pure functions on the pixel buffer.

/// A region in desktop pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// Smallest and largest scale of a screenshot.
pub const MIN_SCALE: f32 = 0.05;
pub const MAX_SCALE: f32 = 1.0;

/// `region` clipped to a `width` x `height` desktop, or an error that says what fits.
pub fn clip(region: Option<Region>, width: u32, height: u32) -> Result<Region, String> {
    let Some(r) = region else {
        return Ok(Region {
            x: 0,
            y: 0,
            width,
            height,
        });
    };
    if r.width == 0 || r.height == 0 || r.x >= width || r.y >= height {
        return Err(format!(
            "the region {}x{} at ({}, {}) is outside the {width}x{height} desktop",
            r.width, r.height, r.x, r.y
        ));
    }
    Ok(Region {
        x: r.x,
        y: r.y,
        width: r.width.min(width - r.x),
        height: r.height.min(height - r.y),
    })
}

/// RGB pixels of `region` of an RGBA buffer (`stride` bytes per row), shrunk by `scale`
/// (each output pixel the average of the source pixels it covers). Returns the size and
/// the pixels.
pub fn crop_scale(rgba: &[u8], stride: usize, region: Region, scale: f32) -> (u32, u32, Vec<u8>) {
    let scale = scale.clamp(MIN_SCALE, MAX_SCALE);
    let out_w = ((region.width as f32 * scale).round() as u32).max(1);
    let out_h = ((region.height as f32 * scale).round() as u32).max(1);
    let mut out = Vec::with_capacity(out_w as usize * out_h as usize * 3);
    let pixel = |x: u32, y: u32| -> [u8; 3] {
        let at = y as usize * stride + x as usize * 4;
        match rgba.get(at..at + 3) {
            Some(p) => [p[0], p[1], p[2]],
            None => [0, 0, 0],
        }
    };
    if out_w == region.width && out_h == region.height {
        for y in region.y..region.y + region.height {
            for x in region.x..region.x + region.width {
                out.extend_from_slice(&pixel(x, y));
            }
        }
        return (out_w, out_h, out);
    }
    for oy in 0..out_h {
        let y0 = region.y + oy * region.height / out_h;
        let y1 = (region.y + (oy + 1) * region.height / out_h).max(y0 + 1);
        for ox in 0..out_w {
            let x0 = region.x + ox * region.width / out_w;
            let x1 = (region.x + (ox + 1) * region.width / out_w).max(x0 + 1);
            let mut sum = [0u32; 3];
            for y in y0..y1 {
                for x in x0..x1 {
                    let p = pixel(x, y);
                    for c in 0..3 {
                        sum[c] += u32::from(p[c]);
                    }
                }
            }
            let n = (y1 - y0) * (x1 - x0);
            out.extend(sum.iter().map(|s| (s / n) as u8));
        }
    }
    (out_w, out_h, out)
}

/// RGB pixels as a PNG file.
pub fn png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("cannot encode the screenshot: {e}"))?;
    writer
        .write_image_data(rgb)
        .map_err(|e| format!("cannot encode the screenshot: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("cannot encode the screenshot: {e}"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_clipped_to_the_desktop() {
        let r = |x, y, width, height| Region {
            x,
            y,
            width,
            height,
        };
        assert_eq!(clip(None, 10, 5), Ok(r(0, 0, 10, 5)));
        assert_eq!(clip(Some(r(8, 1, 5, 10)), 10, 5), Ok(r(8, 1, 2, 4)));
        assert!(clip(Some(r(10, 0, 1, 1)), 10, 5).is_err());
        assert!(clip(Some(r(0, 0, 0, 1)), 10, 5).is_err());
    }

    #[test]
    fn shrinking_averages_the_covered_pixels() {
        // 2x2 RGBA: white, black / black, white -> one grey pixel at scale 0.5.
        let rgba = [
            255, 255, 255, 255, 0, 0, 0, 255, //
            0, 0, 0, 255, 255, 255, 255, 255,
        ];
        let full = Region {
            x: 0,
            y: 0,
            width: 2,
            height: 2,
        };
        assert_eq!(crop_scale(&rgba, 8, full, 0.5), (1, 1, vec![127, 127, 127]));
        let (w, h, rgb) = crop_scale(&rgba, 8, full, 1.0);
        assert_eq!((w, h, rgb.len()), (2, 2, 12));
        let png = png(w, h, &rgb).expect("png");
        assert_eq!(&png[1..4], b"PNG");
    }
}
