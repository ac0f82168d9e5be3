import { simulateRoute } from '../../shared/domain/payment-routing.ts';
import { http } from '../../shared/http/index.ts';
import { SimulateRouteBody } from '../../shared/schemas/payments.ts';
import { RouteSimulation } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'routing:read', body: SimulateRouteBody, response: RouteSimulation },
  async ({ merchant, body }) => simulateRoute(merchant, body),
);
