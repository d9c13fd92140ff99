//! Which codec the server's screen updates use, read from the fast-path update headers
//! (MS-RDPBCGR 2.2.9.1.2) before the session decodes them. IronRDP decodes both kinds but
//! does not say which one arrived, and what was negotiated is only known by what the
//! server then sends: a server may ignore an offered codec.

/// How a screen update was encoded (the WIT `codec`, as a number for an atomic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Codec {
    Pending = 0,
    Bitmap = 1,
    RemoteFx = 2,
}

impl Codec {
    pub fn from_u8(n: u8) -> Self {
        match n {
            1 => Self::Bitmap,
            2 => Self::RemoteFx,
            _ => Self::Pending,
        }
    }
}

const UPDATE_BITMAP: u8 = 0x1;
const UPDATE_SURFACE_COMMANDS: u8 = 0x4;
/// Fragmentation values whose data starts an update (single, first).
const FRAGMENT_SINGLE: u8 = 0;
const FRAGMENT_FIRST: u8 = 2;
const COMPRESSION_USED: u8 = 0x2;
const CMD_SET_SURFACE_BITS: u16 = 0x1;
const CMD_FRAME_MARKER: u16 = 0x4;
const CMD_STREAM_SURFACE_BITS: u16 = 0x6;
/// The id IronRDP's client codec list gives RemoteFX (`CODEC_ID_REMOTEFX`).
const CODEC_ID_REMOTEFX: u8 = 3;

/// The codec of the screen updates in one fast-path PDU (header included), if it carries
/// any that can be told apart. Compressed updates are skipped (the client offers no bulk
/// compression, so servers do not send them).
pub fn of_fast_path(pdu: &[u8]) -> Option<Codec> {
    let first = *pdu.first()?;
    // Encrypted fast-path output belongs to Standard RDP Security, which is never used.
    if first & 0x80 != 0 {
        return None;
    }
    let len_bytes = if *pdu.get(1)? & 0x80 != 0 { 2 } else { 1 };
    let mut rest = pdu.get(1 + len_bytes..)?;
    let mut found = None;
    while let [header, tail @ ..] = rest {
        let code = header & 0x0f;
        let fragmentation = (header >> 4) & 0x3;
        let compression = header >> 6;
        let tail = if compression & COMPRESSION_USED != 0 {
            tail.get(1..)?
        } else {
            tail
        };
        let size = usize::from(u16::from_le_bytes([*tail.first()?, *tail.get(1)?]));
        let data = tail.get(2..2 + size)?;
        rest = &tail[2 + size..];
        if compression & COMPRESSION_USED != 0
            || !matches!(fragmentation, FRAGMENT_SINGLE | FRAGMENT_FIRST)
        {
            continue;
        }
        match code {
            UPDATE_BITMAP => found = Some(Codec::Bitmap),
            UPDATE_SURFACE_COMMANDS => found = surface_codec(data).or(found),
            _ => {}
        }
    }
    found
}

/// The codec of the first surface bits command in `data` (frame markers skipped).
fn surface_codec(mut data: &[u8]) -> Option<Codec> {
    loop {
        let cmd = u16::from_le_bytes([*data.first()?, *data.get(1)?]);
        match cmd {
            CMD_FRAME_MARKER => data = data.get(8..)?,
            // cmdType, destLeft/Top/Right/Bottom, then TS_BITMAP_DATA_EX: bpp, flags,
            // reserved, codecID.
            CMD_SET_SURFACE_BITS | CMD_STREAM_SURFACE_BITS => {
                return Some(if *data.get(13)? == CODEC_ID_REMOTEFX {
                    Codec::RemoteFx
                } else {
                    Codec::Bitmap
                });
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdu(updates: &[(u8, &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        for (header, data) in updates {
            body.push(*header);
            body.extend_from_slice(&(data.len() as u16).to_le_bytes());
            body.extend_from_slice(data);
        }
        let total = body.len() + 3;
        let mut out = vec![0x00, 0x80 | (total >> 8) as u8, total as u8];
        out.extend(body);
        out
    }

    fn surface_bits(codec: u8) -> Vec<u8> {
        let mut d = vec![0x01, 0x00];
        d.extend_from_slice(&[0; 8]);
        d.extend_from_slice(&[32, 0, 0, codec]);
        d.extend_from_slice(&[0; 10]);
        d
    }

    #[test]
    fn tells_bitmap_from_remotefx() {
        assert_eq!(
            of_fast_path(&pdu(&[(UPDATE_BITMAP, &[0; 6])])),
            Some(Codec::Bitmap)
        );
        // A frame marker, then RemoteFX surface bits, in the first fragment of an update.
        let mut data = vec![0x04, 0x00, 0, 0, 1, 0, 0, 0];
        data.extend(surface_bits(CODEC_ID_REMOTEFX));
        assert_eq!(
            of_fast_path(&pdu(&[(
                UPDATE_SURFACE_COMMANDS | (FRAGMENT_FIRST << 4),
                &data
            )])),
            Some(Codec::RemoteFx)
        );
        assert_eq!(
            of_fast_path(&pdu(&[(UPDATE_SURFACE_COMMANDS, &surface_bits(0))])),
            Some(Codec::Bitmap)
        );
    }

    #[test]
    fn other_updates_and_garbage_say_nothing() {
        // A later fragment, a pointer update, a truncated PDU, an encrypted one.
        assert_eq!(
            of_fast_path(&pdu(&[(UPDATE_SURFACE_COMMANDS | (3 << 4), &[9; 20])])),
            None
        );
        assert_eq!(of_fast_path(&pdu(&[(0x5, &[])])), None);
        assert_eq!(of_fast_path(&[0x00, 0x10, 0x01, 0x40]), None);
        assert_eq!(of_fast_path(&[0x80, 0x05, 1, 2, 3]), None);
        assert_eq!(of_fast_path(&[]), None);
    }
}
