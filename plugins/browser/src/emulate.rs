//! `browse_emulate`: what the current session's tabs pretend to be (device, user agent,
//! locale, timezone, geolocation, color scheme, offline).

use crate::memory;
use warden_sdk::browser::{self, Emulation, Geolocation, Viewport};
use warden_sdk::prelude::*;

/// A device preset: viewport and user agent (none: the browser's own).
pub struct Device {
    pub name: &'static str,
    pub viewport: Viewport,
    pub user_agent: Option<&'static str>,
}

pub const DEVICES: &[Device] = &[
    Device {
        name: "iPhone 15",
        viewport: Viewport {
            width: 393,
            height: 852,
            device_scale: 3.0,
            mobile: true,
        },
        user_agent: Some(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
        ),
    },
    Device {
        name: "Pixel 7",
        viewport: Viewport {
            width: 412,
            height: 915,
            device_scale: 2.625,
            mobile: true,
        },
        user_agent: Some(
            "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        ),
    },
    Device {
        name: "iPad",
        viewport: Viewport {
            width: 820,
            height: 1180,
            device_scale: 2.0,
            mobile: true,
        },
        user_agent: Some(
            "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
        ),
    },
    Device {
        name: "Desktop",
        viewport: Viewport {
            width: 1280,
            height: 800,
            device_scale: 1.0,
            mobile: false,
        },
        user_agent: None,
    },
];

/// The preset named `name` (case, spaces and dashes do not matter).
pub fn device(name: &str) -> Option<&'static Device> {
    let key = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase()
    };
    DEVICES.iter().find(|d| key(d.name) == key(name))
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EmulateArgs {
    /// iPhone 15, Pixel 7, iPad, Desktop.
    device: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    device_scale: Option<f64>,
    mobile: Option<bool>,
    /// "" resets.
    user_agent: Option<String>,
    /// Like de-DE; "" resets.
    locale: Option<String>,
    /// Like Asia/Tokyo; "" resets.
    timezone: Option<String>,
    latitude: Option<f64>,
    longitude: Option<f64>,
    accuracy: Option<f64>,
    /// light, dark, none.
    color_scheme: Option<String>,
    offline: Option<bool>,
    /// Drop all emulation first.
    reset: Option<bool>,
}

fn text(v: Option<String>) -> Option<Option<String>> {
    v.map(|s| Some(s).filter(|s| !s.is_empty()))
}

/// The emulation after applying `args` to `current`.
fn apply(mut e: Emulation, args: EmulateArgs) -> Result<Emulation, ToolError> {
    if args.reset == Some(true) {
        e = Emulation {
            viewport: None,
            user_agent: None,
            locale: None,
            timezone: None,
            geolocation: None,
            color_scheme: None,
            offline: false,
        };
    }
    if let Some(name) = &args.device {
        let d = device(name).ok_or_else(|| {
            let names: Vec<&str> = DEVICES.iter().map(|d| d.name).collect();
            ToolError::invalid_arguments(format!(
                "no device preset \"{name}\"; use one of: {}, or give width and height",
                names.join(", ")
            ))
        })?;
        e.viewport = Some(d.viewport);
        e.user_agent = d.user_agent.map(str::to_string);
    }
    if args.width.is_some()
        || args.height.is_some()
        || args.device_scale.is_some()
        || args.mobile.is_some()
    {
        let base = e.viewport.unwrap_or(Viewport {
            width: 1280,
            height: 800,
            device_scale: 1.0,
            mobile: false,
        });
        e.viewport = Some(Viewport {
            width: args.width.unwrap_or(base.width),
            height: args.height.unwrap_or(base.height),
            device_scale: args.device_scale.unwrap_or(base.device_scale),
            mobile: args.mobile.unwrap_or(base.mobile),
        });
    }
    if let Some(ua) = text(args.user_agent) {
        e.user_agent = ua;
    }
    if let Some(locale) = text(args.locale) {
        e.locale = locale;
    }
    if let Some(tz) = text(args.timezone) {
        e.timezone = tz;
    }
    match (args.latitude, args.longitude) {
        (Some(latitude), Some(longitude)) => {
            e.geolocation = Some(Geolocation {
                latitude,
                longitude,
                accuracy: args.accuracy.unwrap_or(10.0),
            });
        }
        (None, None) => {}
        _ => {
            return Err(ToolError::invalid_arguments(
                "give latitude and longitude together",
            ));
        }
    }
    if let Some(scheme) = args.color_scheme {
        e.color_scheme = match scheme.as_str() {
            "none" | "" => None,
            "light" | "dark" => Some(scheme),
            other => {
                return Err(ToolError::invalid_arguments(format!(
                    "color_scheme \"{other}\" is not light, dark or none"
                )));
            }
        };
    }
    if let Some(offline) = args.offline {
        e.offline = offline;
    }
    Ok(e)
}

fn summary(e: &Emulation) -> String {
    let mut parts = Vec::new();
    if let Some(v) = &e.viewport {
        parts.push(format!(
            "viewport {}x{} @{}x{}",
            v.width,
            v.height,
            v.device_scale,
            if v.mobile { " mobile" } else { "" }
        ));
    }
    if let Some(ua) = &e.user_agent {
        parts.push(format!("user agent \"{ua}\""));
    }
    if let Some(l) = &e.locale {
        parts.push(format!("locale {l}"));
    }
    if let Some(tz) = &e.timezone {
        parts.push(format!("timezone {tz}"));
    }
    if let Some(g) = &e.geolocation {
        parts.push(format!(
            "geolocation {}, {} (±{} m)",
            g.latitude, g.longitude, g.accuracy
        ));
    }
    if let Some(c) = &e.color_scheme {
        parts.push(format!("color scheme {c}"));
    }
    if e.offline {
        parts.push("offline".into());
    }
    if parts.is_empty() {
        "no emulation (the browser's own behaviour)".into()
    } else {
        parts.join("; ")
    }
}

fn browse_emulate(args: EmulateArgs) -> Result<String, ToolError> {
    let session = memory::with(|st| st.current.clone());
    let current = browser::emulation(Some(&session))?;
    let next = apply(current, args)?;
    browser::set_emulation(Some(&session), &next)?;
    Ok(format!(
        "Session \"{session}\": {}.\nIt applies to the session's tabs now and to new ones; the user agent and locale reach the site from the next request (browse_reload to refresh the page).",
        summary(&next)
    ))
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(Tool::new("browse_emulate", browse_emulate).description(
        "Emulate a device, viewport, locale, timezone, geolocation, color scheme or \
                 offline; omitted settings stay.",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_found_loosely_and_are_sane() {
        assert_eq!(device("iphone-15").map(|d| d.name), Some("iPhone 15"));
        assert_eq!(device("PIXEL 7").map(|d| d.name), Some("Pixel 7"));
        assert!(device("Nokia 3310").is_none());
        for d in DEVICES {
            assert!(
                d.viewport.width >= 320 && d.viewport.height >= 480,
                "{}",
                d.name
            );
            assert_eq!(d.viewport.mobile, d.user_agent.is_some(), "{}", d.name);
        }
    }

    #[test]
    fn apply_merges_and_resets() {
        let e = apply(
            Emulation {
                viewport: None,
                user_agent: None,
                locale: Some("fr-FR".into()),
                timezone: None,
                geolocation: None,
                color_scheme: None,
                offline: false,
            },
            EmulateArgs {
                device: Some("iPad".into()),
                width: Some(700),
                timezone: Some("Asia/Tokyo".into()),
                ..Default::default()
            },
        )
        .expect("valid");
        assert_eq!(e.viewport.map(|v| (v.width, v.height)), Some((700, 1180)));
        assert_eq!(e.locale.as_deref(), Some("fr-FR"));
        assert_eq!(e.timezone.as_deref(), Some("Asia/Tokyo"));
        let e = apply(
            e,
            EmulateArgs {
                reset: Some(true),
                locale: Some("de-DE".into()),
                ..Default::default()
            },
        )
        .expect("valid");
        assert!(e.viewport.is_none() && e.timezone.is_none());
        assert_eq!(e.locale.as_deref(), Some("de-DE"));
        let e = apply(
            e,
            EmulateArgs {
                locale: Some(String::new()),
                ..Default::default()
            },
        )
        .expect("valid");
        assert!(e.locale.is_none());
        assert!(
            apply(
                e,
                EmulateArgs {
                    latitude: Some(1.0),
                    ..Default::default()
                }
            )
            .is_err()
        );
    }
}
