//! Session emulation: viewport, user agent, locale, timezone, geolocation, color scheme and
//! offline mode, as the DevTools commands that put a tab into that state (sent to every
//! open tab of the session, and to each new tab before it runs).

use crate::capabilities::browser::cdp::CdpError;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::live::Live;
use serde_json::{Value, json};

pub use crate::manifest::emulation::{Emulation, Geolocation, Viewport};

impl Emulation {
    /// The commands that put a tab into this state from any earlier one.
    pub fn commands(&self) -> Vec<(&'static str, Value)> {
        let mut out = vec![match &self.viewport {
            Some(v) => (
                "Emulation.setDeviceMetricsOverride",
                json!({ "width": v.width, "height": v.height, "deviceScaleFactor": v.device_scale, "mobile": v.mobile }),
            ),
            None => ("Emulation.clearDeviceMetricsOverride", json!({})),
        }];
        let mobile = self.viewport.is_some_and(|v| v.mobile);
        out.push((
            "Emulation.setTouchEmulationEnabled",
            json!({ "enabled": mobile, "maxTouchPoints": if mobile { 5 } else { 1 } }),
        ));
        // An empty user agent keeps the browser's own (and still sends the Accept-Language).
        let mut ua_params = json!({ "userAgent": self.user_agent.as_deref().unwrap_or_default() });
        if let Some(locale) = &self.locale {
            ua_params["acceptLanguage"] = json!(locale);
        }
        out.push(("Emulation.setUserAgentOverride", ua_params));
        out.push((
            "Emulation.setLocaleOverride",
            match &self.locale {
                Some(l) => json!({ "locale": l }),
                None => json!({}),
            },
        ));
        out.push((
            "Emulation.setTimezoneOverride",
            json!({ "timezoneId": self.timezone.as_deref().unwrap_or_default() }),
        ));
        out.push(match &self.geolocation {
            Some(g) => (
                "Emulation.setGeolocationOverride",
                json!({ "latitude": g.latitude, "longitude": g.longitude, "accuracy": g.accuracy }),
            ),
            None => ("Emulation.clearGeolocationOverride", json!({})),
        });
        let features: Vec<Value> = self
            .color_scheme
            .iter()
            .map(|c| json!({ "name": "prefers-color-scheme", "value": c }))
            .collect();
        out.push((
            "Emulation.setEmulatedMedia",
            json!({ "media": "", "features": features }),
        ));
        out.push((
            "Network.emulateNetworkConditions",
            json!({ "offline": self.offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1 }),
        ));
        out
    }
}

/// A refusal the browser gives when another tab of the same renderer process already set
/// the (process-wide) locale or timezone: the value is in effect, so it is not a failure.
pub fn already_in_effect(message: &str) -> bool {
    message.contains("already in effect")
}

impl Live {
    /// Replace the emulation of `context` and apply it to its open tabs (new tabs get it
    /// when they attach).
    pub async fn set_emulation(&self, context: &str, emulation: Emulation) -> Result<()> {
        emulation.validate().map_err(BrowserError::Invalid)?;
        let permission = match emulation.geolocation {
            Some(_) => (
                "Browser.grantPermissions",
                json!({ "permissions": ["geolocation"], "browserContextId": context }),
            ),
            None => (
                "Browser.resetPermissions",
                json!({ "browserContextId": context }),
            ),
        };
        self.cdp.call_raw(None, permission.0, permission.1).await?;
        let (commands, sessions, frames) = {
            let mut st = self.lock();
            let extras = st.extras.entry(context.to_string()).or_default();
            let commands = emulation.commands();
            extras.emulation = emulation;
            let sessions = st.tab_sessions(context);
            (commands, sessions, st.frame_sessions(context))
        };
        for sid in sessions {
            for (method, params) in &commands {
                match self.cdp.call_raw(Some(&sid), method, params.clone()).await {
                    Ok(_) => {}
                    Err(CdpError::Protocol { message, .. }) if already_in_effect(&message) => {}
                    Err(e) => {
                        let open = self.lock().tabs.values().any(|t| t.session == sid);
                        if open {
                            return Err(BrowserError::Io(format!(
                                "the browser refused the emulation ({e})"
                            )));
                        }
                        break;
                    }
                }
            }
        }
        // An out-of-process frame's renderer takes what applies to it (the user agent, the
        // locale, the time zone); the rest is the tab's and is refused there.
        for sid in frames {
            for (method, params) in &commands {
                let _ = self.cdp.call_raw(Some(&sid), method, params.clone()).await;
            }
        }
        Ok(())
    }

    pub fn emulation_of(&self, context: &str) -> Emulation {
        self.lock()
            .extras
            .get(context)
            .map(|x| x.emulation.clone())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_state_clears_every_override() {
        let cmds = Emulation::default().commands();
        let names: Vec<&str> = cmds.iter().map(|c| c.0).collect();
        assert!(names.contains(&"Emulation.clearDeviceMetricsOverride"));
        assert!(names.contains(&"Emulation.clearGeolocationOverride"));
        let ua = cmds
            .iter()
            .find(|c| c.0 == "Emulation.setUserAgentOverride")
            .map(|c| c.1.clone());
        assert_eq!(ua, Some(json!({ "userAgent": "" })));
        let tz = cmds.iter().find(|c| c.0 == "Emulation.setTimezoneOverride");
        assert_eq!(tz.map(|c| &c.1["timezoneId"]), Some(&json!("")));
    }

    #[test]
    fn locale_alone_keeps_the_browser_user_agent() {
        let e = Emulation {
            locale: Some("de-DE".into()),
            ..Default::default()
        };
        let cmds = e.commands();
        let ua = cmds
            .iter()
            .find(|c| c.0 == "Emulation.setUserAgentOverride")
            .map(|c| c.1.clone());
        assert_eq!(
            ua,
            Some(json!({ "userAgent": "", "acceptLanguage": "de-DE" }))
        );
    }

    #[test]
    fn validation_names_what_is_wrong() {
        let bad = [
            Emulation {
                viewport: Some(Viewport {
                    width: 10,
                    height: 800,
                    device_scale: 1.0,
                    mobile: false,
                }),
                ..Default::default()
            },
            Emulation {
                timezone: Some("Mars/Base; rm".into()),
                ..Default::default()
            },
            Emulation {
                color_scheme: Some("blue".into()),
                ..Default::default()
            },
            Emulation {
                geolocation: Some(Geolocation {
                    latitude: 91.0,
                    longitude: 0.0,
                    accuracy: 1.0,
                }),
                ..Default::default()
            },
            Emulation {
                locale: Some("de_DE!".into()),
                ..Default::default()
            },
        ];
        for e in bad {
            assert!(e.validate().is_err(), "{e:?}");
        }
        assert!(Emulation::default().validate().is_ok());
    }
}
