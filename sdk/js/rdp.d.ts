// warden:rdp/desktop: the functions of wit/deps/rdp/rdp.wit (declarations generated into
// wit-types/), every call async. Errors are CapabilityError.
/// <reference path="./wit-types/interfaces/warden-rdp-desktop.d.ts" />
import type * as raw from 'warden:rdp/desktop@0.1.0';

export type * from 'warden:rdp/desktop@0.1.0';

type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;

export declare const open: Async<typeof raw.open>;
export declare const info: Async<typeof raw.info>;
export declare const listDesktops: Async<typeof raw.listDesktops>;
export declare const screenshot: Async<typeof raw.screenshot>;
export declare const pointerMove: Async<typeof raw.pointerMove>;
export declare const click: Async<typeof raw.click>;
export declare const drag: Async<typeof raw.drag>;
export declare const scroll: Async<typeof raw.scroll>;
export declare const typeText: Async<typeof raw.typeText>;
export declare const pressKeys: Async<typeof raw.pressKeys>;
export declare const wait: Async<typeof raw.wait>;
export declare const resize: Async<typeof raw.resize>;
export declare const close: Async<typeof raw.close>;
