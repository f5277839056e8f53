declare const __PACKAGE_VERSION__: string | undefined;

/** The package version, injected at build time (tests run from sources and see '0.0.0-source'). */
export const VERSION: string = typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : '0.0.0-source';
