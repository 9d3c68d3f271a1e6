// oidc-provider 8 ships no types and @types/oidc-provider is not installed: this much of it is what the test provider
// (src/oidc.ts) and the development issuer (scripts/dev/issuer) use. The one copy: a workspace that compiles either
// includes this file.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[] };
    params: Record<string, unknown>;
    /** The browser's session at the provider when the interaction began, if it had one. */
    session?: { uid?: string; accountId?: string };
    /** Epoch seconds. */
    exp: number;
    save(ttlSeconds: number): Promise<unknown>;
  }

  export interface Grant {
    jti: string;
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export interface KoaContext {
    type: string;
    body: unknown;
    set(name: string, value: string): void;
    oidc: {
      client?: { clientId: string };
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
      result?: { consent?: { grantId?: string }; login?: { accountId: string } };
      requestParamOIDCScopes: Set<string>;
      provider: Provider;
    };
  }

  export type InteractionResult = { login: { accountId: string } } | { error: string; error_description?: string };

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResult,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    readonly Session: {
      findByUid(uid: string): Promise<{ destroy(): Promise<void> } | undefined>;
    };
    readonly Grant: {
      new (properties: { clientId: string; accountId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
  }

  export const interactionPolicy: {
    base(): { get(name: string): { checks: { add(check: unknown): void } } | undefined };
    Check: {
      new (reason: string, description: string, check: (ctx: KoaContext) => boolean): unknown;
      REQUEST_PROMPT: boolean;
      NO_NEED_TO_PROMPT: boolean;
    };
  };

  export const errors: {
    SessionNotFound: new (...args: unknown[]) => Error;
  };
}
