//! The page's style sheets as rules the host applies: parsed with `cssparser` (the CSS
//! syntax of Servo's engine), each style rule's selectors parsed by `select.rs` and its
//! declarations by `style.rs`, keeping those of the properties page.js's answers depend on.
//! Whatever would make the host guess (an `@import`, a media query or `@supports` condition
//! that is not trivially true or false, cascade layers, container queries, nesting, a selector
//! the host cannot evaluate) is noted as the reason the page goes to the browser, but only
//! when it holds such a property: a `@media (max-width: 600px)` that changes paddings does
//! not matter.

use cssparser::{
    AtRuleParser, CowRcStr, ParseError, Parser, ParserState, QualifiedRuleParser, StyleSheetParser,
};
use selectors::parser::Selector;

use super::select::{self, Impl};
use super::style::{Decl, declarations, mentions_relevant};

/// At-rules whose blocks style no element (an animation's keyframes are refused where an
/// animation is used).
const STYLE_NOTHING: &[&str] = &[
    "font-face",
    "keyframes",
    "-webkit-keyframes",
    "page",
    "property",
    "counter-style",
    "font-feature-values",
    "font-palette-values",
    "view-transition",
    "position-try",
];

/// A style rule with what the host reads of it.
pub(super) struct Rule {
    pub(super) selectors: Vec<Selector<Impl>>,
    pub(super) decls: Vec<Decl>,
}

/// The rules of every sheet, in cascade order, or why the host cannot apply them.
#[derive(Default)]
pub(super) struct Rules {
    pub(super) rules: Vec<Rule>,
    pub(super) why: Option<&'static str>,
}

impl Rules {
    fn refuse(&mut self, why: &'static str) {
        self.why.get_or_insert(why);
    }

    /// Add a style sheet's text (applied to the page: its media already checked).
    pub(super) fn add_sheet(&mut self, css: &str) {
        let mut input = Parser::new(css);
        let items: Vec<Item> = StyleSheetParser::new(&mut input, &mut Collect)
            .filter_map(Result::ok)
            .collect();
        for item in items {
            self.add_item(item);
        }
    }

    fn add_item(&mut self, item: Item) {
        match item {
            Item::Style { prelude, block } => {
                let (decls, nested) = declarations(&block);
                if nested && mentions_relevant(&block) {
                    self.refuse("nested style rules");
                }
                if decls.is_empty() {
                    return;
                }
                match select::parse(&prelude) {
                    select::Parsed::Exact(selectors) => {
                        if !selectors.is_empty() {
                            self.rules.push(Rule { selectors, decls });
                        }
                    }
                    // `.skip:focus { left: 8px }`: what a state does that page.js would not
                    // read does not matter.
                    select::Parsed::Unknowable if decls.iter().any(Decl::matters) => {
                        self.refuse("a selector the host cannot evaluate (a state, or unknown)");
                    }
                    select::Parsed::Unknowable => {}
                }
            }
            Item::Statement { name } => match name.as_str() {
                "import" => self.refuse("an @import"),
                "namespace" => self.refuse("an @namespace"),
                // `@charset`, `@layer a, b;`: nothing that applies to an element.
                _ => {}
            },
            Item::Block {
                name,
                prelude,
                block,
            } => match name.as_str() {
                "media" => match media_matches(&prelude) {
                    Some(true) => self.add_sheet(&block),
                    Some(false) => {}
                    None if matters(&block) => self.refuse("a media query"),
                    None => {}
                },
                _ if STYLE_NOTHING.contains(&name.as_str()) || !matters(&block) => {}
                "supports" => self.refuse("an @supports condition"),
                "layer" => self.refuse("cascade layers"),
                "container" => self.refuse("a container query"),
                _ => self.refuse("an at-rule the host does not apply"),
            },
        }
    }
}

/// Could the rules of this CSS change what page.js reports, whatever their conditions?
pub(super) fn matters(css: &str) -> bool {
    let mut input = Parser::new(css);
    let items: Vec<Item> = StyleSheetParser::new(&mut input, &mut Collect)
        .filter_map(Result::ok)
        .collect();
    items.into_iter().any(|item| match item {
        Item::Style { block, .. } => {
            let (decls, nested) = declarations(&block);
            decls.iter().any(Decl::matters) || (nested && mentions_relevant(&block))
        }
        Item::Statement { name } => name == "import",
        Item::Block { name, block, .. } => {
            !STYLE_NOTHING.contains(&name.as_str()) && matters(&block)
        }
    })
}

/// Does a media query list (`<style media>`, `<link media>`, `@media`) match the browser's
/// screen? `None` when that takes more than the media types: a feature (`(max-width: …)`)
/// depends on the window.
pub(super) fn media_matches(list: &str) -> Option<bool> {
    let list = list.trim().to_ascii_lowercase();
    if list.is_empty() {
        return Some(true);
    }
    let mut unknown = false;
    for query in list.split(',') {
        let words: Vec<&str> = query.split_ascii_whitespace().collect();
        let (negated, rest) = match words.as_slice() {
            ["not", rest @ ..] => (true, rest),
            ["only", rest @ ..] => (false, rest),
            rest => (false, rest),
        };
        let matched = match rest {
            ["all" | "screen"] => Some(true),
            // Media types that never match a browser's screen (deprecated ones included).
            [
                "print" | "speech" | "tty" | "tv" | "projection" | "handheld" | "braille"
                | "embossed" | "aural",
            ] => Some(false),
            _ => None,
        };
        match matched.map(|m| m != negated) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => unknown = true,
        }
    }
    if unknown { None } else { Some(false) }
}

/// A top-level item of a sheet, as text.
enum Item {
    Style {
        prelude: String,
        block: String,
    },
    Statement {
        name: String,
    },
    Block {
        name: String,
        prelude: String,
        block: String,
    },
}

/// Collects a sheet's items as text.
struct Collect;

/// All the tokens left, as their source text.
fn rest(input: &mut Parser<'_>) -> String {
    let start = input.position();
    while input.next().is_ok() {}
    input.slice_from(start).to_string()
}

impl<'i> QualifiedRuleParser<'i> for Collect {
    type Prelude = String;
    type QualifiedRule = Item;
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<String, ParseError<()>> {
        Ok(rest(input))
    }

    fn parse_block(
        &mut self,
        prelude: String,
        _start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<Item, ParseError<()>> {
        Ok(Item::Style {
            prelude,
            block: rest(input),
        })
    }
}

impl<'i> AtRuleParser<'i> for Collect {
    type Prelude = (String, String);
    type AtRule = Item;
    type Error = ();

    fn parse_prelude(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
    ) -> Result<(String, String), ParseError<()>> {
        Ok((name.to_ascii_lowercase(), rest(input)))
    }

    fn rule_without_block(
        &mut self,
        (name, _): (String, String),
        _start: &ParserState,
    ) -> Result<Item, ()> {
        Ok(Item::Statement { name })
    }

    fn parse_block(
        &mut self,
        (name, prelude): (String, String),
        _start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<Item, ParseError<()>> {
        Ok(Item::Block {
            name,
            prelude,
            block: rest(input),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_are_trivially_true_or_false_and_features_are_not() {
        assert_eq!(media_matches(""), Some(true));
        assert_eq!(media_matches("screen"), Some(true));
        assert_eq!(media_matches("only screen, print"), Some(true));
        assert_eq!(media_matches("print"), Some(false));
        assert_eq!(media_matches("not print"), Some(true));
        assert_eq!(media_matches("not all"), Some(false));
        assert_eq!(media_matches("(max-width: 600px)"), None);
        assert_eq!(media_matches("print, (min-width: 1px)"), None);
    }

    #[test]
    fn only_what_matters_sends_a_page_to_the_browser() {
        let mut rules = Rules::default();
        rules.add_sheet(
            "@charset \"utf-8\"; .a { color: red } @media (max-width: 600px) { .b { padding: 0 } }
             @font-face { font-family: x; src: url(x.woff) } .menu { display: none }
             a:hover { color: blue } @media print { .c { display: none } }
             @media (max-width: 600px) { .d { width: 100%; margin-left: -10px; left: 0 } }",
        );
        assert_eq!(rules.why, None);
        assert_eq!(rules.rules.len(), 1, "only the rule that hides");
        for (css, why) in [
            ("@import url(more.css);", "an @import"),
            (
                "@media (max-width: 600px) { .nav { display: none } }",
                "a media query",
            ),
            (
                ".menu:hover .sub { display: block }",
                "a selector the host cannot evaluate (a state, or unknown)",
            ),
            (
                "@layer base { .x { visibility: hidden } }",
                "cascade layers",
            ),
            (".x { .y & { display: none } }", "nested style rules"),
        ] {
            let mut rules = Rules::default();
            rules.add_sheet(css);
            assert_eq!(rules.why, Some(why), "{css}");
        }
    }
}
