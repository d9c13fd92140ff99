// warden:rdp/desktop (wit/deps/rdp/rdp.wit): remote desktops of `grants.rdp`. Arguments and
// results are the WIT's in camelCase; every function is async. Errors are CapabilityError.

export declare function open(host: string): Promise<any>;
export declare function info(id: string): Promise<any>;
export declare function listDesktops(): Promise<any[]>;
export declare function screenshot(id: string, region: any | undefined, scale: number): Promise<any>;
export declare function pointerMove(id: string, x: number, y: number): Promise<void>;
export declare function click(id: string, x: number, y: number, button: 'left' | 'right' | 'middle', count: number): Promise<void>;
export declare function drag(id: string, fromX: number, fromY: number, toX: number, toY: number, button: 'left' | 'right' | 'middle'): Promise<void>;
export declare function scroll(id: string, x: number, y: number, vertical: number, horizontal: number): Promise<void>;
export declare function typeText(id: string, text: string): Promise<void>;
export declare function pressKeys(id: string, keys: string[]): Promise<void>;
export declare function wait(id: string, until: any, stillMs: number, timeoutMs: number): Promise<boolean>;
export declare function close(id: string): Promise<void>;
