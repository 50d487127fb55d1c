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
  constructor(budget: number, hourly = false) {
    super(
      `request budget spent: ${budget} requests used${hourly ? ' (all the hourly limit had left)' : ''}, the copy is not complete`,
      ExitCode.API,
    );
    this.hint(
      'the requests made so far are kept: run the same command again to resume (later, if the hourly limit is near), or raise --budget',
    );
  }
}

/** A page client that counts requests and stops at the budget. */
export class BudgetedClient implements PageClient {
  /** Requests sent by this process. */
  used = 0;
  /** `X-RateLimit-Remaining` of the last response, when the server sent it. */
  remaining: number | undefined;
  /** True once the hourly limit's remainder made the budget smaller. */
  lowered = false;

  constructor(
    private readonly api: ApiClient,
    public budget: number,
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
    if (this.used >= this.budget) throw new BudgetExhausted(this.budget, this.lowered);
    this.used++;
    const res = await this.api.request(req);
    const remaining = res.rateLimit.remaining;
    if (remaining !== undefined) {
      this.remaining = remaining;
      // The user's other jobs spent part of the hour: the copy stops before the API would refuse.
      if (remaining < this.left) {
        this.budget = this.used + remaining;
        this.lowered = true;
      }
    }
    return res;
  }
}
