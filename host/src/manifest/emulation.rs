//! Browser emulation settings (viewport, user agent, locale, timezone, geolocation, color
//! scheme, offline), checked the same way whether they come from `[browser.profiles]` or from
//! a plugin's emulate call. The browser capability turns them into DevTools commands.

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub width: u32,
    pub height: u32,
    pub device_scale: f64,
    pub mobile: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geolocation {
    pub latitude: f64,
    pub longitude: f64,
    pub accuracy: f64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Emulation {
    pub viewport: Option<Viewport>,
    pub user_agent: Option<String>,
    pub locale: Option<String>,
    pub timezone: Option<String>,
    pub geolocation: Option<Geolocation>,
    pub color_scheme: Option<String>,
    pub offline: bool,
}

impl Emulation {
    /// Refuse values the browser would reject or misread, with what to give instead.
    pub fn validate(&self) -> Result<(), String> {
        let bad = |m: String| Err(m);
        if let Some(v) = &self.viewport {
            if !(100..=4000).contains(&v.width) || !(100..=4000).contains(&v.height) {
                return bad(format!(
                    "viewport {}x{} is out of range; width and height must be 100-4000",
                    v.width, v.height
                ));
            }
            if !(0.5..=5.0).contains(&v.device_scale) {
                return bad(format!(
                    "device scale {} is out of range; use 0.5-5",
                    v.device_scale
                ));
            }
        }
        if let Some(ua) = &self.user_agent
            && (ua.trim().is_empty() || ua.len() > 512 || ua.contains(['\r', '\n']))
        {
            return bad("the user agent must be one line of 1-512 characters".into());
        }
        if let Some(locale) = &self.locale
            && (locale.is_empty()
                || locale.len() > 35
                || !locale
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-'))
        {
            return bad(format!(
                "locale \"{locale}\" is not a language tag such as en-US or de-DE"
            ));
        }
        if let Some(tz) = &self.timezone
            && (tz.is_empty()
                || tz.len() > 64
                || !tz
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/_-+".contains(c)))
        {
            return bad(format!(
                "timezone \"{tz}\" is not an IANA zone such as Europe/Berlin or America/New_York"
            ));
        }
        if let Some(g) = &self.geolocation
            && (!(-90.0..=90.0).contains(&g.latitude)
                || !(-180.0..=180.0).contains(&g.longitude)
                || g.accuracy.is_nan()
                || g.accuracy < 0.0)
        {
            return bad(
                "geolocation needs latitude -90..90, longitude -180..180 and accuracy >= 0".into(),
            );
        }
        if let Some(scheme) = &self.color_scheme
            && scheme != "light"
            && scheme != "dark"
        {
            return bad(format!("color scheme \"{scheme}\" is not light or dark"));
        }
        Ok(())
    }
}
