/**
 * The request budget of a copy: every request goes through {@link BudgetedClient}, which counts
 * it and refuses to send one past the budget — so a copy never spends more of the user's hourly
 * allowance than it said it would.
 */
import type { ApiClient, ApiRequest, ApiResponse } from '../../api/client.js';
import type { PageClient } from '../../api/paginate.js';
import { ExitCode, SvcError } from '../../errors.js';

/** The API's limit, per user and per hour. */
export const API_HOURLY_LIMIT = 10_000;
/** Default budget of a copy: a tenth of the hourly limit leaves the user's other jobs room. */
export const DEFAULT_BUDGET = 1_000;

/** Thrown instead of sending a request the budget does not cover. */
export class BudgetExhausted extends SvcError {
  constructor(budget: number) {
    super(`request budget spent: ${budget} requests used, the copy is not complete`, ExitCode.API);
    this.hint('the requests made so far are kept: run the same command again to resume (later, if the hourly limit is near), or raise --budget');
  }
}

/** A page client that counts requests and stops at the budget. */
export class BudgetedClient implements PageClient {
  /** Requests sent by this process. */
  used = 0;
  /** `X-RateLimit-Remaining` of the last response, when the server sent it. */
  remaining: number | undefined;

  constructor(
    private readonly api: ApiClient,
    readonly budget: number,
  ) {}

  get baseUrl(): URL {
    return this.api.baseUrl;
  }

  resolve(pathOrUrl: string): URL {
    return this.api.resolve(pathOrUrl);
  }

  /** Requests left in the budget. */
  get left(): number {
    return Math.max(0, this.budget - this.used);
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    if (this.used >= this.budget) throw new BudgetExhausted(this.budget);
    this.used++;
    const res = await this.api.request(req);
    if (res.rateLimit.remaining !== undefined) this.remaining = res.rateLimit.remaining;
    return res;
  }
}
