//! Text helpers the tools share: quoting page text, cutting long text into parts.

/// `s` in double quotes, character for character: a quote of the page's is escaped (`\"`),
/// never changed into another character an agent would then fail to match.
pub fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

/// Part `page` (from 1) of `text` cut at `max_chars`, on character boundaries, and the number
/// of parts.
pub fn part(text: &str, max_chars: usize, page: usize) -> (&str, usize) {
    let total = text.chars().count();
    let parts = total.div_ceil(max_chars).max(1);
    let start = text
        .char_indices()
        .nth((page - 1) * max_chars)
        .map_or(text.len(), |(i, _)| i);
    let end = text[start..]
        .char_indices()
        .nth(max_chars)
        .map_or(text.len(), |(i, _)| start + i);
    (&text[start..end], parts)
}

#[cfg(test)]
mod tests {
    use super::part;

    #[test]
    fn parts_cut_on_char_boundaries() {
        let text = "ééééé";
        assert_eq!(part(text, 2, 1), ("éé", 3));
        assert_eq!(part(text, 2, 3), ("é", 3));
        assert_eq!(part(text, 2, 4), ("", 3));
        assert_eq!(part("", 10, 1), ("", 1));
    }
}
