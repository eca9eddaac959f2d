// Types of dynamic-imports.js for the tests that import it.
export declare const IMPORTER: string;
export declare function routeDynamicImports(text: string): string;
