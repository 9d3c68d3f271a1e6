/**
 * Generated from the API server's /openapi.json by openapi-typescript: never edit it by hand.
 * After changing a route's schema, write it again with `npm run generate -w packages/web-console`.
 */

export interface paths {
    "/console/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Starts signing in to the console at the identity provider */
        get: {
            parameters: {
                query?: {
                    /** @description a path of the console (under CONSOLE_PUBLIC_URL's path) to open after signing in */
                    returnTo?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description to the identity provider, or back to the console */
                303: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description this address has CONSOLE_SIGN_IN_LIMIT sign-ins under way; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds until the address's oldest sign-in expires */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/auth/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where the identity provider returns; starts the session and opens the console */
        get: {
            parameters: {
                query?: {
                    state?: string;
                    code?: string;
                    error?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description to the identity provider, or back to the console */
                303: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether this browser is signed in to the console, as whom, until when (never a token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signedIn: boolean;
                            /** @description as role bindings name it: `<issuer>#<sub>` */
                            subject?: string;
                            /** @description what to call the user: the ID token's `name`, else `email`, else `preferred_username` (or the provider's user info when the ID token has none), else the subject; one line, no control characters */
                            name?: string;
                            /** @description RFC 3339: the ID token's expiry, when the session ends */
                            expiresAt?: string;
                        };
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Signs out: ends the session for every replica and clears the cookie */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description signed out */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok";
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description 200 while the database answers within 1500 ms, else 503 (with Retry-After). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ready";
                        };
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/platform/feature-flags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            flags: components["schemas"]["FlagState"][];
                        };
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/platform/feature-flags/{flag}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    flag: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        value: boolean;
                        /** @description why, shown to tenants and kubectl users: 1 to 200 characters (code points), at least one visible, none a control, bidirectional or other invisible character */
                        reason?: string;
                        /** @description RFC 3339, in the future, at most 30 days ahead: the value is cleared then, as a DELETE would */
                        expiresAt?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FlagWriteResult"];
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16 KiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is not `application/json` */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    flag: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FlagWriteResult"];
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/platform/feature-flags/{flag}/impact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What switching the flag off platform-wide would reach (for a confirmation) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    flag: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description what the typed confirmation (X-GSP-Confirm) must say */
                            platformId: string;
                            /** @description clusters without an override of their own for the flag */
                            clustersAffected: number;
                            /** @description agent tunnels open now, across every cluster */
                            tunnelsOpen: number;
                        };
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/clusters/{id}/feature-flags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            flags: components["schemas"]["FlagState"][];
                        };
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/clusters/{id}/feature-flags/{flag}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                    flag: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        value: boolean;
                        /** @description why, shown to tenants and kubectl users: 1 to 200 characters (code points), at least one visible, none a control, bidirectional or other invisible character */
                        reason?: string;
                        /** @description RFC 3339, in the future, at most 30 days ahead: the value is cleared then, as a DELETE would */
                        expiresAt?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FlagWriteResult"];
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16 KiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is not `application/json` */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                    flag: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FlagWriteResult"];
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every tenant, with how many clusters and members it has (platform admins)
         * @description Read-only. A tenant's clusters and their CLI access are at `/api/v1/tenants/{org}/clusters`, its members at `/api/v1/tenants/{org}/members`; platform admins may read both for every tenant.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            tenants: components["schemas"]["TenantSummary"][];
                        };
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            members: components["schemas"]["Member"][];
                            /** @description AUTH_OIDC_ISSUER_URL: a user who signs in there is a member as `<issuer>#<sub>` (their token's `sub`); null when none is configured */
                            issuer: string | null;
                        };
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/members/{subject}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** @description Sets the role; 409 when it would take away the tenant's last admin. */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org: string;
                    /** @description the user's subject (the `sub` of their token): a subject is 1 to 255 visible ASCII characters (inner spaces allowed) and does not begin with "system:", which Kubernetes reserves for its own components */
                    subject: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        role: "admin" | "operator" | "viewer";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            org: string;
                            subject: string;
                            role: "admin" | "operator" | "viewer";
                        };
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the change would leave the tenant without an admin */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16 KiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is not `application/json` */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** @description Removes the member; 409 for the tenant's last admin. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org: string;
                    /** @description the user's subject (the `sub` of their token); no control characters */
                    subject: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description removed */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the change would leave the tenant without an admin */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/clusters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            clusters: components["schemas"]["Cluster"][];
                        };
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ClusterWithAgentToken"];
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description a cluster of that name exists in the tenant */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16 KiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is not `application/json` */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/clusters/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Cluster"];
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/clusters/{id}/agent-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Replaces the agent token: the new one is shown once; the old one stops working and its live tunnel is closed. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ClusterWithAgentToken"];
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/platform/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: {
                    /** @description entries per JSON page; for every matching entry at once, download with `format` */
                    limit?: number;
                    /** @description the `nextCursor` of the previous page */
                    cursor?: string;
                    /** @description only entries of this action, such as `featureflags.set` (send it again with each `cursor`) */
                    action?: string;
                    /** @description only entries by this actor, a subject as the entries name it, or `system:expiry` */
                    actor?: string;
                    /** @description only entries about this cluster id: its registration, deletion and agent tokens (`resource` `cluster:<id>`) and its flags */
                    cluster?: string;
                    /** @description only entries written at or after this RFC 3339 date-time */
                    since?: string;
                    /** @description only entries written before this RFC 3339 date-time */
                    until?: string;
                    /** @description `ndjson` or `csv`: every matching entry, oldest first, as a file to save (no `limit` or `cursor`); `json`: pages. Without it, `Accept` chooses; it wins over `Accept` */
                    format?: "json" | "ndjson" | "csv";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description a page of entries, newest first; or, as NDJSON or CSV, every matching entry, oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["AuditEntry"][];
                            nextCursor: string | null;
                        };
                        "application/x-ndjson": string;
                        "text/csv": string;
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description `Accept` names none of application/json, application/x-ndjson and text/csv */
                406: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The tenant's rows: its members, its clusters (registration, deletion, agent tokens) and their flags. */
        get: {
            parameters: {
                query?: {
                    /** @description entries per JSON page; for every matching entry at once, download with `format` */
                    limit?: number;
                    /** @description the `nextCursor` of the previous page */
                    cursor?: string;
                    /** @description only entries of this action, such as `featureflags.set` (send it again with each `cursor`) */
                    action?: string;
                    /** @description only entries by this actor, a subject as the entries name it, or `system:expiry` */
                    actor?: string;
                    /** @description only entries about this cluster id: its registration, deletion and agent tokens (`resource` `cluster:<id>`) and its flags */
                    cluster?: string;
                    /** @description only entries written at or after this RFC 3339 date-time */
                    since?: string;
                    /** @description only entries written before this RFC 3339 date-time */
                    until?: string;
                    /** @description `ndjson` or `csv`: every matching entry, oldest first, as a file to save (no `limit` or `cursor`); `json`: pages. Without it, `Accept` chooses; it wins over `Accept` */
                    format?: "json" | "ndjson" | "csv";
                };
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description a page of entries, newest first; or, as NDJSON or CSV, every matching entry, oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["AuditEntry"][];
                            nextCursor: string | null;
                        };
                        "application/x-ndjson": string;
                        "text/csv": string;
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description `Accept` names none of application/json, application/x-ndjson and text/csv */
                406: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Keys that verify kubeconfig tokens (read by the cluster proxy). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description a JWK Set (RFC 7517) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            keys: ({
                                kty?: string;
                                kid?: string;
                            } & {
                                [key: string]: unknown;
                            })[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/clusters/{id}/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description the cluster's effective cli_access.enabled; `record`: the stored value that decided (source cluster or platform) */
                            cliAccess: {
                                enabled: boolean;
                                source: string;
                                envPinned: boolean;
                                record: components["schemas"]["SwitchRecord"];
                            };
                            proxyUrl: string;
                        };
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{org}/clusters/{id}/kubeconfig": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A kubeconfig (application/yaml) with a short-lived token for the caller. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the tenant; no control characters */
                    org: string;
                    /** @description the cluster id; no control characters */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description a kubeconfig for kubectl */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/yaml": string;
                    };
                };
                /** @description bad input: `detail` says what is allowed, `errors` names each field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller does not have the permission */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such tenant, cluster, member or flag */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description kubectl access to this cluster is turned off (`cli_access.enabled`) */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ofrep/v1/evaluate/flags/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OFREP single flag evaluation
         * @description Context `{ targetingKey?, org?, clusterId? }`; other attributes are ignored. `clusterId` requires `org` and a role in that tenant.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the flag key */
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            key: string;
                            /** @description always present: the effective value, never left to the caller’s code default */
                            value: boolean;
                            reason: "STATIC" | "TARGETING_MATCH" | "SPLIT" | "DISABLED" | "UNKNOWN";
                            variant: "on" | "off";
                            /** @description OFREP `metadata`: primitive values only */
                            metadata: {
                                /** @description which rule decided: env pin, cluster override, platform default or the built-in default */
                                source: "env" | "cluster" | "platform" | "default";
                                /** @description the flag is pinned by the server environment; writes are inert */
                                envPinned: boolean;
                                /** @description the flag store could not be read; this is the last value seen */
                                stale: boolean;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            key: string;
                            errorCode: "PARSE_ERROR" | "TARGETING_KEY_MISSING" | "INVALID_CONTEXT" | "GENERAL";
                            errorDetails?: string;
                        };
                    };
                };
                /** @description no or an invalid bearer token; no body */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description the context names a tenant the caller has no role in; no body */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            key: string;
                            /** @enum {string} */
                            errorCode: "FLAG_NOT_FOUND";
                            errorDetails?: string;
                        };
                    };
                };
                /** @description the body is larger than 16 KiB; a smaller context can succeed */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
                /** @description the database is unavailable or too slow; retry after Retry-After seconds */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ofrep/v1/evaluate/flags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OFREP bulk evaluation of every flag
         * @description Answers 304 without a body when `If-None-Match` matches the `ETag`. `eventStreams` names an SSE stream (OFREP ADR-0008) that sends `refetchEvaluation` when a committed write may have changed a value. The `flagConfigEtag` and `flagConfigLastModified` query parameters are accepted and ignored: every evaluation is current.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            flags: ({
                                key: string;
                                /** @description always present: the effective value, never left to the caller’s code default */
                                value: boolean;
                                reason: "STATIC" | "TARGETING_MATCH" | "SPLIT" | "DISABLED" | "UNKNOWN";
                                variant: "on" | "off";
                                /** @description OFREP `metadata`: primitive values only */
                                metadata: {
                                    /** @description which rule decided: env pin, cluster override, platform default or the built-in default */
                                    source: "env" | "cluster" | "platform" | "default";
                                    /** @description the flag is pinned by the server environment; writes are inert */
                                    envPinned: boolean;
                                    /** @description the flag store could not be read; this is the last value seen */
                                    stale: boolean;
                                };
                            } | {
                                key: string;
                                errorCode: string;
                                errorDetails?: string;
                            })[];
                            eventStreams: {
                                /** @enum {string} */
                                type: "sse";
                                /**
                                 * Format: uri
                                 * @description GET it with the same bearer token; it carries no credential of its own
                                 */
                                url: string;
                            }[];
                        };
                    };
                };
                /** @description If-None-Match matched the current ETag; no body */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorCode: string;
                            errorDetails?: string;
                        };
                    };
                };
                /** @description no or an invalid bearer token; no body */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description the context names a tenant the caller has no role in; no body */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description the body is larger than 16 KiB; a smaller context can succeed */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
                /** @description the database is unavailable or too slow; retry after Retry-After seconds */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ofrep/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OFREP event stream (Server-Sent Events, ADR-0008)
         * @description Advertised in `eventStreams` of the bulk evaluation; authenticated with the same bearer token. Sends `data: {"type":"refetchEvaluation"}` when a committed write may have changed a value for this context, and a comment line as heartbeat.
         */
        get: {
            parameters: {
                query?: {
                    org?: string;
                    clusterId?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Server-Sent Events: `refetchEvaluation` messages and heartbeat comments */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorCode: string;
                            errorDetails?: string;
                        };
                    };
                };
                /** @description no or an invalid bearer token; no body */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description the context names a tenant the caller has no role in; no body */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
                /** @description the database is unavailable or too slow; retry after Retry-After seconds */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            errorDetails?: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who the caller is: its subject, whether it is a platform admin, its tenants and roles */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description the caller's subject, as role bindings and audit rows name it */
                            subject: string;
                            /** @description holds the platform admin role (every permission) */
                            platformAdmin: boolean;
                            /** @description the tenants the caller is a member of, and its role in each, by org */
                            tenants: {
                                org: string;
                                /** @description admin, operator or viewer */
                                role: "admin" | "operator" | "viewer";
                            }[];
                        };
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live changes the caller may see (Server-Sent Events), resumable with Last-Event-ID
         * @description Server-Sent Events: `flag`, `member`, `cluster` and `agent` events, each `id: <outbox id>`, `event: <name>`, `data: <json>`, filtered to what the caller may see; `event: reload` when events were missed, `event: close` before the server ends the stream, comment lines as heartbeats. `Last-Event-ID` (or `lastEventId`) must be the id of an event of this stream: a whole number from 0 to 9223372036854775807. See the API server's README for payloads and rules.
         */
        get: {
            parameters: {
                query?: {
                    /** @description for clients that cannot set headers: resume after this event id (`Last-Event-ID` wins) */
                    lastEventId?: string;
                };
                header?: {
                    /** @description resume after this event id: the `id` of the last event received */
                    "last-event-id"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Server-Sent Events: `flag`, `member`, `cluster` and `agent` events, each `id: <outbox id>`, `event: <name>`, `data: <json>`, filtered to what the caller may see; `event: reload` when events were missed, `event: close` before the server ends the stream, comment lines as heartbeats. `Last-Event-ID` (or `lastEventId`) must be the id of an event of this stream: a whole number from 0 to 9223372036854775807. See the API server's README for payloads and rules. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description `Last-Event-ID` or `lastEventId` is not an event id */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no bearer token, or one that is not valid (see `WWW-Authenticate`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the database is unavailable or too slow to answer; retry after `Retry-After` seconds */
                503: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description RFC 9457 problem details */
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            requestId: string;
            /** @description on a 400 for bad input: each field that failed */
            errors?: {
                in: "body" | "path" | "query" | "header";
                /** @description RFC 6901 JSON Pointer to the field in that part, as a URI fragment: `#/role` */
                pointer: string;
                /** @description what is wrong, naming what is allowed */
                detail: string;
            }[];
        };
        /** @description a stored value: who set it, when, why and until when; null where nothing is stored */
        SwitchRecord: {
            value: boolean;
            /** @description who set it; null when a platform admin set it and the caller is not one */
            actor: string | null;
            /** @description what the actor is called, as their identity provider said at their last console sign-in; absent when the platform does not know, or `actor` is null */
            actorName?: string;
            /** @description `platform-admin` or the tenant role the actor held; null for values set before records existed */
            actorRole: string | null;
            /** Format: date-time */
            setAt: string;
            reason: string | null;
            /**
             * Format: date-time
             * @description when the value is cleared, as a DELETE would; null: until changed
             */
            expiresAt: string | null;
        } | null;
        FlagState: {
            key: string;
            /** @description the effective value at this scope */
            value: boolean;
            platformDefault: boolean | null;
            clusterOverride?: boolean | null;
            source: "env" | "cluster" | "platform" | "default";
            envPinned: boolean;
            platformRecord: components["schemas"]["SwitchRecord"];
            clusterRecord?: components["schemas"]["SwitchRecord"];
        };
        FlagWriteResult: {
            key: string;
            scope: {
                /** @enum {string} */
                type: "platform";
            } | {
                /** @enum {string} */
                type: "cluster";
                org: string;
                clusterId: string;
            };
            value: boolean | null;
            effective: boolean;
            source: "env" | "cluster" | "platform" | "default";
            envPinned: boolean;
            platformRecord: components["schemas"]["SwitchRecord"];
            clusterRecord?: components["schemas"]["SwitchRecord"];
        };
        Cluster: {
            id: string;
            name: string;
            org: string;
            createdBy: string;
            createdAt: string;
            /** @description the cluster's tunnel agent as the proxies last renewed it: a proxy that dies without a goodbye stops counting when its lease (PRESENCE_LEASE) runs out */
            agent: {
                /** @description a cluster proxy replica holds a live tunnel from its agent */
                connected: boolean;
                /** @description RFC 3339: since when (its oldest live tunnel); null while disconnected */
                since: string | null;
            };
            /** @description the cluster's effective cli_access.enabled, as GET .../access answers it, with kubectl's refusal; `record`: the stored value that decided (source cluster or platform) */
            cliAccess: {
                enabled: boolean;
                source: string;
                envPinned: boolean;
                record: components["schemas"]["SwitchRecord"];
                /** @description null while enabled; otherwise why kubectl is refused (the kubeconfig download says it too), naming no platform admin */
                message: string | null;
            };
        };
        ClusterWithAgentToken: {
            id: string;
            name: string;
            org: string;
            createdBy: string;
            createdAt: string;
            /** @description shown once; only its hash is stored */
            agentToken: string;
            /** @description where the cluster's tunnel agent dials the cluster proxy (PROXY_TUNNEL_PUBLIC_URL): its proxyTunnelUrl */
            tunnelUrl: string;
        };
        Member: {
            subject: string;
            role: "admin" | "operator" | "viewer";
            /** @description what the member is called, as their identity provider said at their last console sign-in */
            name?: string;
        };
        TenantSummary: {
            org: string;
            /** Format: date-time */
            createdAt: string;
            /** @description clusters registered in the tenant */
            clusters: number;
            /** @description members of any role */
            members: number;
        };
        AuditEntry: {
            id: string;
            action: string;
            actor: string;
            resource: string;
            details: {
                [key: string]: unknown;
            };
            requestId?: string;
            /** Format: date-time */
            createdAt: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
