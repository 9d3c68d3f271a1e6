// oidc-provider 8 ships no types and @types/oidc-provider is not installed; the development issuer uses this much of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[] };
    params: Record<string, unknown>;
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
      result?: { consent?: { grantId?: string } };
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
    readonly Grant: {
      new (properties: { clientId: string; accountId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
  }

  export const errors: {
    SessionNotFound: new (...args: unknown[]) => Error;
  };
}
