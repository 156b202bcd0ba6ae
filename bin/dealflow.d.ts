// The launcher's exports, for the tests that keep its flags equal to the service's.
export declare const WASM_FLAGS: string[];
export declare const SERVE_FLAGS: string[];
export declare function nodeFlags(args: string[]): string[];
export declare function nodeBinary(): string;
