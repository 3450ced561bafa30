//! A fixed 256-bit set: cells of a grid (row-major) or numbers 1..N stored as 0..N-1.

pub const WORDS: usize = 4;
/// Largest board the candidate machinery handles: 256 cells (16×16, 8×32, ...).
pub const MAX_CELLS: usize = WORDS * 64;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bits(pub [u64; WORDS]);

impl FromIterator<usize> for Bits {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        let mut b = Bits::EMPTY;
        for i in iter {
            b.set(i);
        }
        b
    }
}

impl Bits {
    pub const EMPTY: Bits = Bits([0; WORDS]);

    /// The set {0, 1, ..., n-1}.
    pub fn first(n: usize) -> Bits {
        let mut b = Bits::EMPTY;
        for (w, word) in b.0.iter_mut().enumerate() {
            let lo = w * 64;
            if n >= lo + 64 {
                *word = !0;
            } else if n > lo {
                *word = (1u64 << (n - lo)) - 1;
            }
        }
        b
    }
    /// The set {a, ..., b} (inclusive); empty when a > b.
    pub fn range(a: usize, b: usize) -> Bits {
        if a > b {
            return Bits::EMPTY;
        }
        Bits::first(b + 1).and_not(Bits::first(a))
    }
    pub fn single(i: usize) -> Bits {
        let mut b = Bits::EMPTY;
        b.set(i);
        b
    }
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1u64 << (i & 63);
    }
    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i >> 6] &= !(1u64 << (i & 63));
    }
    #[inline]
    pub fn has(&self, i: usize) -> bool {
        self.0[i >> 6] >> (i & 63) & 1 == 1
    }
    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// The smallest member.
    #[inline]
    pub fn min(&self) -> Option<usize> {
        for (w, &word) in self.0.iter().enumerate() {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
        }
        None
    }
    /// The largest member.
    #[inline]
    pub fn max(&self) -> Option<usize> {
        for w in (0..WORDS).rev() {
            let word = self.0[w];
            if word != 0 {
                return Some(w * 64 + 63 - word.leading_zeros() as usize);
            }
        }
        None
    }
    #[inline]
    pub fn and(self, o: Bits) -> Bits {
        let mut r = self;
        for w in 0..WORDS {
            r.0[w] &= o.0[w];
        }
        r
    }
    #[inline]
    pub fn or(self, o: Bits) -> Bits {
        let mut r = self;
        for w in 0..WORDS {
            r.0[w] |= o.0[w];
        }
        r
    }
    #[inline]
    pub fn and_not(self, o: Bits) -> Bits {
        let mut r = self;
        for w in 0..WORDS {
            r.0[w] &= !o.0[w];
        }
        r
    }
    #[inline]
    pub fn intersects(&self, o: &Bits) -> bool {
        (0..WORDS).any(|w| self.0[w] & o.0[w] != 0)
    }
    /// Every member moved up by `k` (members past 255 fall off).
    #[inline]
    pub fn shift_up(self, k: usize) -> Bits {
        let mut r = Bits::EMPTY;
        let (ws, bs) = (k / 64, k % 64);
        for w in (ws..WORDS).rev() {
            let mut v = self.0[w - ws] << bs;
            if bs > 0 && w > ws {
                v |= self.0[w - ws - 1] >> (64 - bs);
            }
            r.0[w] = v;
        }
        r
    }
    /// Every member moved down by `k` (members below 0 fall off).
    #[inline]
    pub fn shift_down(self, k: usize) -> Bits {
        let mut r = Bits::EMPTY;
        let (ws, bs) = (k / 64, k % 64);
        for w in 0..WORDS.saturating_sub(ws) {
            let mut v = self.0[w + ws] >> bs;
            if bs > 0 && w + ws + 1 < WORDS {
                v |= self.0[w + ws + 1] << (64 - bs);
            }
            r.0[w] = v;
        }
        r
    }
    pub fn iter(&self) -> BitsIter {
        BitsIter {
            words: self.0,
            w: 0,
        }
    }
}

pub struct BitsIter {
    words: [u64; WORDS],
    w: usize,
}

impl Iterator for BitsIter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.w < WORDS {
            let word = self.words[self.w];
            if word != 0 {
                let t = word.trailing_zeros() as usize;
                self.words[self.w] = word & (word - 1);
                return Some(self.w * 64 + t);
            }
            self.w += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_and_ranges() {
        let b = Bits::range(60, 70);
        assert_eq!(b.count(), 11);
        assert_eq!(b.shift_up(3), Bits::range(63, 73));
        assert_eq!(b.shift_down(61), Bits::range(0, 9));
        assert_eq!(b.shift_up(130), Bits::range(190, 200));
        assert_eq!(Bits::range(250, 255).shift_up(3), Bits::range(253, 255));
        assert_eq!(b.min(), Some(60));
        assert_eq!(b.max(), Some(70));
        assert_eq!(b.iter().collect::<Vec<_>>(), (60..=70).collect::<Vec<_>>());
        assert_eq!(Bits::first(256).count(), 256);
        // Every shift of a few sets, against moving each member.
        for set in [
            Bits::range(0, 255),
            Bits::range(3, 200),
            Bits::range(62, 130),
            b,
        ] {
            for k in 0..=256 {
                let up: Bits = set.iter().map(|i| i + k).filter(|&i| i < 256).collect();
                let down: Bits = set.iter().filter(|&i| i >= k).map(|i| i - k).collect();
                assert_eq!(set.shift_up(k), up, "up {k}");
                assert_eq!(set.shift_down(k), down, "down {k}");
            }
        }
    }
}
