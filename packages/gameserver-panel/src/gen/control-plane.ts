/**
 * Generated from the control plane's /openapi.json by openapi-typescript: never edit it by hand.
 * After changing a route's schema, write it again with `npm run generate -w packages/gameserver-panel`.
 */

export interface paths {
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
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/session": {
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
                            userId: string;
                            username: string;
                            role: string;
                            authMethod: string;
                        };
                    };
                };
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/gameservers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: {
                    /** @description A Kubernetes namespace. */
                    namespace?: string;
                    /** @description At most this many items; a `Link: <...>; rel="next"` header gives the rest. */
                    limit?: number;
                    /** @description From the previous page's `Link` header. */
                    continue?: string;
                    labelSelector?: string;
                    state?: string;
                };
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
                        "application/json": components["schemas"]["GameServer"][];
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/gameservers/{namespace}/{name}": {
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
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
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
                            namespace: string;
                            name: string;
                            /** @description The profile it was created from (label gsp.dev/profile), null for one created otherwise. */
                            profile: string | null;
                            /** @description The Agones state: Creating, Scheduled, RequestReady, Ready, Reserved, Allocated, Shutdown, Unhealthy, Error. */
                            state: string;
                            /** @description Where players connect; null until the server is scheduled. */
                            address: string | null;
                            ports: {
                                name: string;
                                port: number;
                                protocol: string;
                            }[];
                            labels: {
                                [key: string]: string;
                            };
                            /** @description Agones player tracking, null when the server's profile sets no player capacity. */
                            players: {
                                count: number;
                                capacity: number;
                            } | null;
                            /** Format: date-time */
                            createdAt: string;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
                query?: {
                    /** @description Needed to delete an Allocated game server: players are on it. */
                    force?: boolean;
                };
                header?: never;
                path: {
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted: Agones shuts it down and removes it (and its storage). */
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/gameservers/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The profile to create it from. */
                        profile: string;
                        /** @description Default: the profile name and a random suffix. */
                        name?: string;
                        /** @description Extra labels; keys under gsp.dev/ are reserved. */
                        labels?: {
                            [key: string]: string;
                        };
                        /** @description Environment variables added to the profile's (these win). */
                        env?: {
                            [key: string]: string;
                        };
                        /** @description A VolumeSnapshot in this namespace, ready to use, that the new server's storage is restored from (its claim's dataSource). */
                        fromSnapshot?: string;
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
                        "application/json": {
                            namespace: string;
                            name: string;
                            /** @description The profile it was created from (label gsp.dev/profile), null for one created otherwise. */
                            profile: string | null;
                            /** @description The Agones state: Creating, Scheduled, RequestReady, Ready, Reserved, Allocated, Shutdown, Unhealthy, Error. */
                            state: string;
                            /** @description Where players connect; null until the server is scheduled. */
                            address: string | null;
                            ports: {
                                name: string;
                                port: number;
                                protocol: string;
                            }[];
                            labels: {
                                [key: string]: string;
                            };
                            /** @description Agones player tracking, null when the server's profile sets no player capacity. */
                            players: {
                                count: number;
                                capacity: number;
                            } | null;
                            /** Format: date-time */
                            createdAt: string;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description Kubernetes refused the object as invalid; `detail` gives the causes */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/gameservers/{namespace}/{name}/actions/{action}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
                    /** @description allocate, reserve, restart, shutdown, or an action of the profile. */
                    action: string;
                };
                cookie?: never;
            };
            /** @description args are appended to the command as separate argv elements, never through a shell. */
            requestBody: {
                content: {
                    "application/json": {
                        args?: string[];
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
                            action: string;
                            gameServer: components["schemas"]["GameServer"];
                        } | {
                            action: string;
                            exitCode: number;
                            stdout: string;
                            stderr: string;
                            /** @description stdout or stderr was cut at 64 KiB. */
                            truncated: boolean;
                            durationMs: number;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 1573120 bytes */
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
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
                /** @description the operation did not finish in time */
                504: {
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
    "/api/v1/events/gameservers": {
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
                /** @description Server-Sent Events, open until the client goes or the server ends the feed. First `event: snapshot`, `data: {"items": [GameServer...]}` (as `GET /api/v1/gameservers` lists them, only namespaces the caller may list); then `event: change`, `data: {"type": "added" | "modified" | "deleted", "item": GameServer}` for each change, within a second; a `: keep-alive` comment every 15 s; and `event: close`, `data: {"reason": "..."}` before the server ends it (the control plane shutting down, the API key revoked or expired, the credential expired, the panel session ended, or a client too far behind). A reconnect starts with a new snapshot. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/fleets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: {
                    /** @description A Kubernetes namespace. */
                    namespace?: string;
                    /** @description At most this many items; a `Link: <...>; rel="next"` header gives the rest. */
                    limit?: number;
                    /** @description From the previous page's `Link` header. */
                    continue?: string;
                };
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
                        "application/json": components["schemas"]["Fleet"][];
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/fleets/{namespace}/{name}": {
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
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
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
                            namespace: string;
                            name: string;
                            /** @description Desired game servers (spec.replicas). */
                            replicas: number;
                            readyReplicas: number;
                            allocatedReplicas: number;
                            reservedReplicas: number;
                            profile: string | null;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/fleets/{namespace}/{name}/scale": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        replicas: number;
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
                            namespace: string;
                            name: string;
                            /** @description Desired game servers (spec.replicas). */
                            replicas: number;
                            readyReplicas: number;
                            allocatedReplicas: number;
                            reservedReplicas: number;
                            profile: string | null;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The valid profiles, by name (a ConfigMap that does not validate is left out). */
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
                            /** @description A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters. */
                            name: string;
                            description?: string;
                            image: string;
                            ports: {
                                name: string;
                                containerPort: number;
                                /**
                                 * @description UDP unless given, as in Agones.
                                 * @default UDP
                                 * @enum {unknown}
                                 */
                                protocol: "UDP" | "TCP" | "TCPUDP";
                            }[];
                            /** @default {} */
                            env: {
                                [key: string]: string;
                            };
                            resources?: {
                                requests?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                                limits?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                            };
                            /** @description Agones' spec.health. */
                            health?: {
                                disabled?: boolean;
                                initialDelaySeconds?: number;
                                periodSeconds?: number;
                                failureThreshold?: number;
                            };
                            /** @description A PersistentVolumeClaim per game server, owned by it. */
                            storage?: {
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                size: string;
                                storageClassName?: string;
                                mountPath: string;
                            };
                            players?: {
                                initialCapacity: number;
                            };
                            /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                            restartCommand?: string[];
                            /**
                             * @description Named command actions, run with POST .../actions/{name}; not allocate, shutdown, restart, reserve, which are built in.
                             * @default {}
                             */
                            actions: {
                                [key: string]: {
                                    /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                    command: string[];
                                    /** @default 30 */
                                    timeoutSeconds: number;
                                    description?: string;
                                };
                            };
                            /** @description Hooks run around a snapshot, and how many snapshots to keep. */
                            snapshot?: {
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                preCommand?: string[];
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                postCommand?: string[];
                                /** @description Ready snapshots kept per game server; older ones are deleted once a newer one is ready. */
                                keep?: number;
                            };
                        }[];
                    };
                };
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/profiles/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One profile; 422 when its ConfigMap exists but does not validate. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters. */
                    name: string;
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
                            /** @description A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters. */
                            name: string;
                            description?: string;
                            image: string;
                            ports: {
                                name: string;
                                containerPort: number;
                                /**
                                 * @description UDP unless given, as in Agones.
                                 * @default UDP
                                 * @enum {unknown}
                                 */
                                protocol: "UDP" | "TCP" | "TCPUDP";
                            }[];
                            /** @default {} */
                            env: {
                                [key: string]: string;
                            };
                            resources?: {
                                requests?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                                limits?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                            };
                            /** @description Agones' spec.health. */
                            health?: {
                                disabled?: boolean;
                                initialDelaySeconds?: number;
                                periodSeconds?: number;
                                failureThreshold?: number;
                            };
                            /** @description A PersistentVolumeClaim per game server, owned by it. */
                            storage?: {
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                size: string;
                                storageClassName?: string;
                                mountPath: string;
                            };
                            players?: {
                                initialCapacity: number;
                            };
                            /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                            restartCommand?: string[];
                            /**
                             * @description Named command actions, run with POST .../actions/{name}; not allocate, shutdown, restart, reserve, which are built in.
                             * @default {}
                             */
                            actions: {
                                [key: string]: {
                                    /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                    command: string[];
                                    /** @default 30 */
                                    timeoutSeconds: number;
                                    description?: string;
                                };
                            };
                            /** @description Hooks run around a snapshot, and how many snapshots to keep. */
                            snapshot?: {
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                preCommand?: string[];
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                postCommand?: string[];
                                /** @description Ready snapshots kept per game server; older ones are deleted once a newer one is ready. */
                                keep?: number;
                            };
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes refused the object as invalid; `detail` gives the causes */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
        /** Creates (201) or replaces (200) a profile, stored as ConfigMap gsp-profile-<name> labelled gsp.dev/profile. */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters. */
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string;
                        image: string;
                        ports: {
                            name: string;
                            containerPort: number;
                            /**
                             * @description UDP unless given, as in Agones.
                             * @default UDP
                             * @enum {unknown}
                             */
                            protocol?: "UDP" | "TCP" | "TCPUDP";
                        }[];
                        /** @default {} */
                        env?: {
                            [key: string]: string;
                        };
                        resources?: {
                            requests?: {
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                cpu?: string;
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                memory?: string;
                            };
                            limits?: {
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                cpu?: string;
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                memory?: string;
                            };
                        };
                        /** @description Agones' spec.health. */
                        health?: {
                            disabled?: boolean;
                            initialDelaySeconds?: number;
                            periodSeconds?: number;
                            failureThreshold?: number;
                        };
                        /** @description A PersistentVolumeClaim per game server, owned by it. */
                        storage?: {
                            /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                            size: string;
                            storageClassName?: string;
                            mountPath: string;
                        };
                        players?: {
                            initialCapacity: number;
                        };
                        /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                        restartCommand?: string[];
                        /**
                         * @description Named command actions, run with POST .../actions/{name}; not allocate, shutdown, restart, reserve, which are built in.
                         * @default {}
                         */
                        actions?: {
                            [key: string]: {
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                command: string[];
                                /** @default 30 */
                                timeoutSeconds?: number;
                                description?: string;
                            };
                        };
                        /** @description Hooks run around a snapshot, and how many snapshots to keep. */
                        snapshot?: {
                            /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                            preCommand?: string[];
                            /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                            postCommand?: string[];
                            /** @description Ready snapshots kept per game server; older ones are deleted once a newer one is ready. */
                            keep?: number;
                        };
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
                            /** @description A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters. */
                            name: string;
                            description?: string;
                            image: string;
                            ports: {
                                name: string;
                                containerPort: number;
                                /**
                                 * @description UDP unless given, as in Agones.
                                 * @default UDP
                                 * @enum {unknown}
                                 */
                                protocol: "UDP" | "TCP" | "TCPUDP";
                            }[];
                            /** @default {} */
                            env: {
                                [key: string]: string;
                            };
                            resources?: {
                                requests?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                                limits?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                            };
                            /** @description Agones' spec.health. */
                            health?: {
                                disabled?: boolean;
                                initialDelaySeconds?: number;
                                periodSeconds?: number;
                                failureThreshold?: number;
                            };
                            /** @description A PersistentVolumeClaim per game server, owned by it. */
                            storage?: {
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                size: string;
                                storageClassName?: string;
                                mountPath: string;
                            };
                            players?: {
                                initialCapacity: number;
                            };
                            /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                            restartCommand?: string[];
                            /**
                             * @description Named command actions, run with POST .../actions/{name}; not allocate, shutdown, restart, reserve, which are built in.
                             * @default {}
                             */
                            actions: {
                                [key: string]: {
                                    /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                    command: string[];
                                    /** @default 30 */
                                    timeoutSeconds: number;
                                    description?: string;
                                };
                            };
                            /** @description Hooks run around a snapshot, and how many snapshots to keep. */
                            snapshot?: {
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                preCommand?: string[];
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                postCommand?: string[];
                                /** @description Ready snapshots kept per game server; older ones are deleted once a newer one is ready. */
                                keep?: number;
                            };
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters. */
                            name: string;
                            description?: string;
                            image: string;
                            ports: {
                                name: string;
                                containerPort: number;
                                /**
                                 * @description UDP unless given, as in Agones.
                                 * @default UDP
                                 * @enum {unknown}
                                 */
                                protocol: "UDP" | "TCP" | "TCPUDP";
                            }[];
                            /** @default {} */
                            env: {
                                [key: string]: string;
                            };
                            resources?: {
                                requests?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                                limits?: {
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    cpu?: string;
                                    /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                    memory?: string;
                                };
                            };
                            /** @description Agones' spec.health. */
                            health?: {
                                disabled?: boolean;
                                initialDelaySeconds?: number;
                                periodSeconds?: number;
                                failureThreshold?: number;
                            };
                            /** @description A PersistentVolumeClaim per game server, owned by it. */
                            storage?: {
                                /** @description A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi. */
                                size: string;
                                storageClassName?: string;
                                mountPath: string;
                            };
                            players?: {
                                initialCapacity: number;
                            };
                            /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                            restartCommand?: string[];
                            /**
                             * @description Named command actions, run with POST .../actions/{name}; not allocate, shutdown, restart, reserve, which are built in.
                             * @default {}
                             */
                            actions: {
                                [key: string]: {
                                    /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                    command: string[];
                                    /** @default 30 */
                                    timeoutSeconds: number;
                                    description?: string;
                                };
                            };
                            /** @description Hooks run around a snapshot, and how many snapshots to keep. */
                            snapshot?: {
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                preCommand?: string[];
                                /** @description argv, run without a shell: 1 to 64 non-empty arguments. */
                                postCommand?: string[];
                                /** @description Ready snapshots kept per game server; older ones are deleted once a newer one is ready. */
                                keep?: number;
                            };
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description Kubernetes refused the object as invalid; `detail` gives the causes */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
        /** Deletes a profile; game servers made from it keep running. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters. */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted. */
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/gameservers/{namespace}/{name}/console/tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A single-use ticket to open the game server's console without credential headers (browsers) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Pass as `?ticket=` when opening the console; valid once. */
                            ticket: string;
                            /** Format: date-time */
                            expiresAt: string;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/gameservers/{namespace}/{name}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: {
                    /** @description Only the last this many lines. */
                    tailLines?: number;
                    /** @description Only the lines of the last this many seconds (at most 30 days). */
                    sinceSeconds?: number;
                    /** @description Keep the stream open and send new lines as they are written, until the game server is deleted or the client goes. */
                    follow?: boolean;
                };
                header?: never;
                path: {
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The game server container's log. A follow ends when the game server is deleted, its container's log ends, or the control plane shuts down. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                        "text/event-stream": string;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the game server has no pod (not created yet, or gone: Agones does not replace it), or its container cannot give its log yet */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/gameservers/{namespace}/{name}/snapshots": {
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
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
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
                        "application/json": components["schemas"]["Snapshot"][];
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Default: the game server's name and the UTC time to the second, `<name>-yyyymmddhhmmss`. */
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description The snapshot as asked for: readyToUse turns true once the snapshotter has cut it. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            namespace: string;
                            name: string;
                            /** @description The game server whose storage it holds (label gsp.dev/gameserver); it may since have been deleted. */
                            gameServer: string;
                            /** @description The profile of that game server when the snapshot was taken (label gsp.dev/profile). */
                            profile: string | null;
                            /** @description Cut by the snapshotter and usable for a restore. */
                            readyToUse: boolean;
                            /** @description The smallest volume it can be restored to, a Kubernetes quantity; null until it is cut. */
                            restoreSize: string | null;
                            /**
                             * Format: date-time
                             * @description When it was asked for.
                             */
                            createdAt: string;
                            /** @description Why the snapshotter has not cut it (its status.error.message), null when nothing went wrong. */
                            error: string | null;
                            /** @description What the profile's snapshot commands did; null for one the profile does not set. */
                            hooks: {
                                preCommand: {
                                    /** @description null when it did not finish: see error. */
                                    exitCode: number | null;
                                    /** @description The first 4 KiB. */
                                    stdout: string;
                                    /** @description The first 4 KiB. */
                                    stderr: string;
                                    durationMs: number;
                                    /** @description Why it did not finish (timeout, the exec stream failed); null when it did. */
                                    error: string | null;
                                } | null;
                                postCommand: {
                                    /** @description null when it did not finish: see error. */
                                    exitCode: number | null;
                                    /** @description The first 4 KiB. */
                                    stdout: string;
                                    /** @description The first 4 KiB. */
                                    stderr: string;
                                    durationMs: number;
                                    /** @description Why it did not finish (timeout, the exec stream failed); null when it did. */
                                    error: string | null;
                                } | null;
                            };
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
                /** @description the operation did not finish in time */
                504: {
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
    "/api/v1/snapshots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: {
                    /** @description A Kubernetes namespace. */
                    namespace?: string;
                    /** @description At most this many items; a `Link: <...>; rel="next"` header gives the rest. */
                    limit?: number;
                    /** @description From the previous page's `Link` header. */
                    continue?: string;
                };
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
                        "application/json": components["schemas"]["Snapshot"][];
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/snapshots/{namespace}/{name}": {
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
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
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
                            namespace: string;
                            name: string;
                            /** @description The game server whose storage it holds (label gsp.dev/gameserver); it may since have been deleted. */
                            gameServer: string;
                            /** @description The profile of that game server when the snapshot was taken (label gsp.dev/profile). */
                            profile: string | null;
                            /** @description Cut by the snapshotter and usable for a restore. */
                            readyToUse: boolean;
                            /** @description The smallest volume it can be restored to, a Kubernetes quantity; null until it is cut. */
                            restoreSize: string | null;
                            /**
                             * Format: date-time
                             * @description When it was asked for.
                             */
                            createdAt: string;
                            /** @description Why the snapshotter has not cut it (its status.error.message), null when nothing went wrong. */
                            error: string | null;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
                    /** @description A Kubernetes namespace. */
                    namespace: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted: the snapshotter removes its data. */
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/apikeys": {
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
                /** @description every API key, sorted by name */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            name: string;
                            userId: string;
                            username: string;
                            role: string;
                            /** @description ISO 8601 UTC */
                            createdAt: string;
                            /** @description ISO 8601 UTC; the key stops authenticating then */
                            expiresAt?: string;
                            /** @description ISO 8601 UTC, recorded at most every five minutes */
                            lastUsedAt?: string;
                        }[];
                    };
                };
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        role?: string;
                        expiresIn?: string;
                    };
                };
            };
            responses: {
                /** @description the key created, with its value */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            name: string;
                            role: string;
                            /** @description ISO 8601 UTC */
                            createdAt: string;
                            /** @description ISO 8601 UTC */
                            expiresAt?: string;
                            /** @description the key to send as X-API-Key; shown in this response only */
                            key: string;
                            warning: string;
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/api/v1/apikeys/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description revoked; other replicas refuse the key once their watch brings the deletion */
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description no such resource */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description it exists already, or it changed while the request was served; `detail` says which */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/panel/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who is signed in to the panel (by its cookie or a credential header), and what they may do */
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
                            /** @enum {boolean} */
                            signedIn: false;
                            methods: {
                                oidc: boolean;
                                basic: boolean;
                                apikey: boolean;
                            };
                        } | {
                            /** @enum {boolean} */
                            signedIn: true;
                            methods: {
                                oidc: boolean;
                                basic: boolean;
                                apikey: boolean;
                            };
                            userId: string;
                            username: string;
                            role: string | null;
                            authMethod: "oidc" | "basic" | "apikey" | "none";
                            expiresAt: string | null;
                            permissions: {
                                /** @description one of session, gameservers, fleets, profiles, snapshots, logs, console, apikeys */
                                resource: string;
                                /** @description one of get, list, create, update, delete, execute */
                                verb: string;
                                namespaces: "*" | string[];
                            }[];
                        };
                    };
                };
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/panel/auth/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in to the panel with Basic or an API key: 204 and the gsp_panel session cookie (needs X-GSP-Panel: 1) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        method: "basic";
                        username: string;
                        password: string;
                    } | {
                        /** @enum {string} */
                        method: "apikey";
                        key: string;
                    };
                };
            };
            responses: {
                /** @description the Set-Cookie header carries the answer */
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
                /** @description no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description the request budget of this credential, or the failed sign-ins of this address, are spent; retry after `Retry-After` seconds */
                429: {
                    headers: {
                        /** @description seconds to wait before retrying */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
    "/panel/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the panel session everywhere and delete its cookie (needs X-GSP-Panel: 1) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the Set-Cookie header carries the answer */
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
                /** @description the caller's role lacks the permission in `x-permission`, or the control plane's service account lacks a Kubernetes one */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description the body is larger than 16384 bytes */
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
                /** @description Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; retry after `Retry-After` seconds */
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
        GameServer: {
            namespace: string;
            name: string;
            /** @description The profile it was created from (label gsp.dev/profile), null for one created otherwise. */
            profile: string | null;
            /** @description The Agones state: Creating, Scheduled, RequestReady, Ready, Reserved, Allocated, Shutdown, Unhealthy, Error. */
            state: string;
            /** @description Where players connect; null until the server is scheduled. */
            address: string | null;
            ports: {
                name: string;
                port: number;
                protocol: string;
            }[];
            labels: {
                [key: string]: string;
            };
            /** @description Agones player tracking, null when the server's profile sets no player capacity. */
            players: {
                count: number;
                capacity: number;
            } | null;
            /** Format: date-time */
            createdAt: string;
        };
        Fleet: {
            namespace: string;
            name: string;
            /** @description Desired game servers (spec.replicas). */
            replicas: number;
            readyReplicas: number;
            allocatedReplicas: number;
            reservedReplicas: number;
            profile: string | null;
        };
        Snapshot: {
            namespace: string;
            name: string;
            /** @description The game server whose storage it holds (label gsp.dev/gameserver); it may since have been deleted. */
            gameServer: string;
            /** @description The profile of that game server when the snapshot was taken (label gsp.dev/profile). */
            profile: string | null;
            /** @description Cut by the snapshotter and usable for a restore. */
            readyToUse: boolean;
            /** @description The smallest volume it can be restored to, a Kubernetes quantity; null until it is cut. */
            restoreSize: string | null;
            /**
             * Format: date-time
             * @description When it was asked for.
             */
            createdAt: string;
            /** @description Why the snapshotter has not cut it (its status.error.message), null when nothing went wrong. */
            error: string | null;
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
