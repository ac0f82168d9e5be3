import { describe, expect, it } from 'vitest';
import { defaultDeployment, mergedTemplate, type Resource } from './templates.ts';

/* The dashboard's distribution and bucket (infra/constructs/dashboard-site.ts) as CloudFormation will make them. */

const stack = await defaultDeployment();
const json = mergedTemplate(stack).toJSON() as { Resources: Record<string, Resource> };
const ofType = (type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);
const only = (type: string) => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]![1].Properties as Record<string, unknown>;
};

/** CloudFront's managed policies, by the ids AWS documents for them. */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  CachePolicyId: string;
  OriginRequestPolicyId?: string;
  AllowedMethods?: string[];
  ViewerProtocolPolicy: string;
  FunctionAssociations?: { EventType: string }[];
}
interface Origin {
  Id: string;
  DomainName: unknown;
  OriginPath?: string;
  S3OriginConfig?: unknown;
  OriginAccessControlId?: unknown;
  CustomOriginConfig?: { OriginProtocolPolicy: string };
}
const config = only('AWS::CloudFront::Distribution').DistributionConfig as unknown as {
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
  Origins: Origin[];
};
const behavior = (pattern: string) => config.CacheBehaviors.find((b) => b.PathPattern === pattern)!;
const originOf = (b: Behavior) => config.Origins.find((o) => o.Id === b.TargetOriginId)!;

describe('the dashboard site', () => {
  it('sends /api/* to the API stage uncached, with every viewer header but Host and every method', () => {
    const api = behavior('/api/*');
    const origin = originOf(api);
    expect(api).toMatchObject({
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      ViewerProtocolPolicy: 'https-only',
    });
    expect(api.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
    expect(origin.OriginPath).toBe('/v1');
    expect(JSON.stringify(origin.DomainName)).toContain('.execute-api.');
    expect(origin.CustomOriginConfig?.OriginProtocolPolicy).toBe('https-only');
  });

  it('serves /dashboard* and its hashed assets from the bucket through origin access control, the page routes by a function', () => {
    const page = behavior('/dashboard*');
    const assets = behavior('/dashboard/assets/*');
    for (const b of [page, assets, config.DefaultCacheBehavior]) {
      expect(originOf(b).OriginAccessControlId, b.PathPattern ?? 'default').toBeDefined();
      expect(b.ViewerProtocolPolicy).toBe('redirect-to-https');
    }
    expect(page.FunctionAssociations).toEqual([expect.objectContaining({ EventType: 'viewer-request' })]);
    expect(assets.FunctionAssociations).toBeUndefined();
    expect(only('AWS::CloudFront::OriginAccessControl').OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
  });

  it('keeps the bucket private: every public access blocked, TLS only, read by CloudFront alone', () => {
    const bucket = only('AWS::S3::Bucket');
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const statements = (
      only('AWS::S3::BucketPolicy').PolicyDocument as unknown as { Statement: { Effect: string; Principal: unknown; Condition?: unknown }[] }
    ).Statement;
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    const allowed = statements.filter((s) => s.Effect === 'Allow');
    expect(allowed.length).toBeGreaterThan(0);
    for (const s of allowed) expect(s.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
  });

  it("answers the page with the dashboard's strict CSP and security headers, and no CORS header", () => {
    const policies = ofType('AWS::CloudFront::ResponseHeadersPolicy').map(
      ([, r]) => (r.Properties as { ResponseHeadersPolicyConfig: Record<string, never> }).ResponseHeadersPolicyConfig,
    );
    expect(policies).toHaveLength(3);
    for (const policy of policies) {
      expect(policy).not.toHaveProperty('CorsConfig');
      expect(policy).toMatchObject({ SecurityHeadersConfig: { FrameOptions: { FrameOption: 'DENY' }, ContentTypeOptions: { Override: true } } });
    }
    const csps = policies.map(
      (p) =>
        (p.SecurityHeadersConfig as unknown as { ContentSecurityPolicy?: { ContentSecurityPolicy: string } }).ContentSecurityPolicy
          ?.ContentSecurityPolicy,
    );
    expect(
      csps.filter((csp) => csp?.includes("default-src 'self'") && csp.includes("frame-ancestors 'none'") && !csp.includes('unsafe-inline')),
    ).toHaveLength(2);
  });

  it('routes / to /dashboard and any dashboard route to index.html, but never an asset', () => {
    // Prepare: the function's code, run as CloudFront runs it on a viewer request
    const code = (only('AWS::CloudFront::Function').FunctionCode as unknown as string).toString();
    const handler = new Function(`${code}; return handler;`)() as (event: unknown) => { uri?: string; statusCode?: number; headers?: unknown };
    const on = (uri: string) => handler({ request: { uri } });
    // Assess
    expect(on('/')).toMatchObject({ statusCode: 302, headers: { location: { value: '/dashboard' } } });
    expect(on('/dashboard').uri).toBe('/dashboard/index.html');
    expect(on('/dashboard/payments/pay_01abc').uri).toBe('/dashboard/index.html');
    expect(on('/dashboard/assets/main-ABC.js').uri).toBe('/dashboard/assets/main-ABC.js');
    expect(on('/dashboardx').uri).toBe('/dashboardx');
  });

  it('grants CORS nowhere: no Access-Control header and no OPTIONS method in the whole deployment', () => {
    expect(JSON.stringify(json)).not.toMatch(/Access-Control-Allow/i);
    expect(ofType('AWS::ApiGateway::Method').filter(([, r]) => (r.Properties as { HttpMethod: string }).HttpMethod === 'OPTIONS')).toEqual([]);
  });
});
