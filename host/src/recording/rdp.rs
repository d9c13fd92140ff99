//! The frame differ of remote-desktop recordings: which rectangles of a desktop changed
//! between two frames, so a recording holds a keyframe now and then and, between keyframes,
//! only the pixels that changed. Pure functions on RGB frames (3 bytes a pixel, rows packed);
//! the capability decides when to sample and how to encode.

/// Side of the square tiles the frames are compared in: a changed tile is found with one
/// comparison of each of its rows, and neighbouring changed tiles merge into rectangles.
const TILE: u32 = 32;
/// More rectangles than this are merged into their bounding box (a patch per rectangle
/// costs a PNG header and a line of JSON; a scattered change is cheaper as one).
const MAX_RECTS: usize = 32;

/// One frame of a desktop: `width` x `height` RGB pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

/// A rectangle of a frame, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

impl Rect {
    pub fn area(&self) -> u64 {
        u64::from(self.w) * u64::from(self.h)
    }

    fn right(&self) -> u32 {
        self.x + self.w
    }

    fn bottom(&self) -> u32 {
        self.y + self.h
    }

    fn union(&self, other: &Rect) -> Rect {
        let (x, y) = (self.x.min(other.x), self.y.min(other.y));
        Rect {
            x,
            y,
            w: self.right().max(other.right()) - x,
            h: self.bottom().max(other.bottom()) - y,
        }
    }
}

impl Frame {
    /// Is the buffer as large as the size says?
    pub fn is_whole(&self) -> bool {
        self.rgb.len() as u64 == u64::from(self.width) * u64::from(self.height) * 3
    }

    /// Bytes `[x, x + w)` of row `y` (empty when outside the frame).
    fn span(&self, x: u32, w: u32, y: u32) -> &[u8] {
        let row = y as usize * self.width as usize * 3;
        self.rgb
            .get(row + x as usize * 3..row + (x + w) as usize * 3)
            .unwrap_or(&[])
    }

    /// The RGB pixels of `r`, rows packed (what a patch holds).
    pub fn crop(&self, r: Rect) -> Vec<u8> {
        let mut out = Vec::with_capacity(r.area() as usize * 3);
        for y in r.y..r.bottom() {
            out.extend_from_slice(self.span(r.x, r.w, y));
        }
        out
    }
}

/// The rectangles of `next` that differ from `prev`, each as tight as the changed pixels in
/// it; empty when the frames are equal. None when the frames' sizes differ (or a buffer
/// is short): only a keyframe can follow.
pub fn changed(prev: &Frame, next: &Frame) -> Option<Vec<Rect>> {
    if (prev.width, prev.height) != (next.width, next.height)
        || !prev.is_whole()
        || !next.is_whole()
    {
        return None;
    }
    let (cols, rows) = (next.width.div_ceil(TILE), next.height.div_ceil(TILE));
    // Runs of changed tiles along each row of tiles, merged with the run above when they
    // cover the same columns.
    let mut rects: Vec<Rect> = Vec::new();
    let mut above: Vec<usize> = Vec::new();
    for ty in 0..rows {
        let y = ty * TILE;
        let h = TILE.min(next.height - y);
        let mut here = Vec::new();
        let mut run: Option<Rect> = None;
        for tx in 0..cols {
            let x = tx * TILE;
            let w = TILE.min(next.width - x);
            let differs = (y..y + h).any(|row| prev.span(x, w, row) != next.span(x, w, row));
            match (&mut run, differs) {
                (Some(r), true) => r.w += w,
                (None, true) => run = Some(Rect { x, y, w, h }),
                (Some(_), false) => here.extend(run.take()),
                (None, false) => {}
            }
        }
        here.extend(run);
        let mut next_above = Vec::new();
        for r in here {
            let merged = above.iter().copied().find(|&i| {
                rects
                    .get(i)
                    .is_some_and(|a| a.x == r.x && a.w == r.w && a.bottom() == r.y)
            });
            match merged.and_then(|i| rects.get_mut(i).map(|a| (i, a))) {
                Some((i, a)) => {
                    a.h += r.h;
                    next_above.push(i);
                }
                None => {
                    next_above.push(rects.len());
                    rects.push(r);
                }
            }
        }
        above = next_above;
    }
    if rects.len() > MAX_RECTS
        && let Some(first) = rects.first().copied()
    {
        rects = vec![rects.iter().fold(first, |all, r| all.union(r))];
    }
    Some(rects.into_iter().map(|r| tighten(prev, next, r)).collect())
}

/// `r` shrunk to the bounding box of the pixels that differ in it (it holds at least one).
fn tighten(prev: &Frame, next: &Frame, r: Rect) -> Rect {
    let rows: Vec<u32> = (r.y..r.bottom())
        .filter(|&y| prev.span(r.x, r.w, y) != next.span(r.x, r.w, y))
        .collect();
    let (Some(&top), Some(&bottom)) = (rows.first(), rows.last()) else {
        return r;
    };
    let (mut left, mut right) = (r.right(), r.x);
    for &y in &rows {
        let (a, b) = (prev.span(r.x, r.w, y), next.span(r.x, r.w, y));
        let differs = |i: &u32| {
            let at = (i - r.x) as usize * 3;
            a.get(at..at + 3) != b.get(at..at + 3)
        };
        if let Some(l) = (r.x..left).find(differs) {
            left = l;
        }
        if let Some(rt) = (right.max(left)..r.right()).rev().find(differs) {
            right = rt + 1;
        }
    }
    if right <= left {
        return r;
    }
    Rect {
        x: left,
        y: top,
        w: right - left,
        h: bottom + 1 - top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(width: u32, height: u32, colour: [u8; 3]) -> Frame {
        Frame {
            width,
            height,
            rgb: colour.repeat((width * height) as usize),
        }
    }

    fn paint(f: &mut Frame, r: Rect, colour: [u8; 3]) {
        for y in r.y..r.y + r.h {
            for x in r.x..r.x + r.w {
                let at = ((y * f.width + x) * 3) as usize;
                f.rgb[at..at + 3].copy_from_slice(&colour);
            }
        }
    }

    #[test]
    fn equal_frames_have_no_change() {
        let a = frame(100, 70, [1, 2, 3]);
        assert_eq!(changed(&a, &a.clone()), Some(vec![]));
    }

    #[test]
    fn a_changed_rectangle_is_found_tightly() {
        let a = frame(200, 100, [0, 0, 0]);
        let mut b = a.clone();
        // Across tile borders (32), not aligned to them.
        let r = Rect {
            x: 30,
            y: 20,
            w: 45,
            h: 50,
        };
        paint(&mut b, r, [255, 255, 255]);
        assert_eq!(changed(&a, &b), Some(vec![r]));
        // One pixel, in the last partial tile.
        let mut c = a.clone();
        let dot = Rect {
            x: 199,
            y: 99,
            w: 1,
            h: 1,
        };
        paint(&mut c, dot, [0, 0, 1]);
        assert_eq!(changed(&a, &c), Some(vec![dot]));
        assert_eq!(c.crop(dot), vec![0, 0, 1]);
    }

    #[test]
    fn separate_changes_are_separate_rectangles() {
        let a = frame(320, 240, [9, 9, 9]);
        let mut b = a.clone();
        let one = Rect {
            x: 5,
            y: 5,
            w: 10,
            h: 10,
        };
        let two = Rect {
            x: 250,
            y: 200,
            w: 20,
            h: 8,
        };
        paint(&mut b, one, [1, 1, 1]);
        paint(&mut b, two, [2, 2, 2]);
        let rects = changed(&a, &b).expect("same size");
        assert_eq!(rects, vec![one, two]);
        // Applying the patches to the old frame gives the new one.
        let mut rebuilt = a.clone();
        for r in rects {
            let patch = b.crop(r);
            for (row, y) in (r.y..r.y + r.h).enumerate() {
                let at = ((y * a.width + r.x) * 3) as usize;
                let len = (r.w * 3) as usize;
                rebuilt.rgb[at..at + len].copy_from_slice(&patch[row * len..(row + 1) * len]);
            }
        }
        assert_eq!(rebuilt, b);
    }

    #[test]
    fn scattered_changes_become_one_box_and_sizes_must_match() {
        let a = frame(640, 480, [0, 0, 0]);
        let mut b = a.clone();
        for i in 0..40 {
            let x = (i % 10) * 64;
            let y = (i / 10) * 100;
            paint(&mut b, Rect { x, y, w: 1, h: 1 }, [255, 0, 0]);
        }
        let rects = changed(&a, &b).expect("same size");
        assert_eq!(
            rects,
            vec![Rect {
                x: 0,
                y: 0,
                w: 577,
                h: 301
            }]
        );
        assert_eq!(changed(&a, &frame(640, 400, [0, 0, 0])), None);
        let short = Frame {
            width: 640,
            height: 480,
            rgb: vec![0; 10],
        };
        assert_eq!(changed(&a, &short), None);
    }
}
