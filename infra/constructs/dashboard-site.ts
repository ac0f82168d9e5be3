import { join } from 'node:path';
import { AssetHashType, DockerImage, Duration, type ILocalBundling, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  type ResponseSecurityHeadersBehavior,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildDashboardSync } from '../../dashboard/build.ts';
import { ASSET_CACHE_CONTROL, DASHBOARD_CSP } from '../../dashboard/headers.ts';
import { PROJECT_ROOT } from '../bundle.ts';

/** Builds the dashboard on this machine (one esbuild run) when CDK stages the asset: no Docker. */
class LocalDashboardBuild implements ILocalBundling {
  tryBundle(outputDir: string): boolean {
    buildDashboardSync(join(outputDir, 'dashboard'));
    return true;
  }
}

/**
 * `/` goes to `/dashboard`; any route of the single-page app under `/dashboard` is its `index.html` (as the local
 * gateway answers, infra/local/dashboard.ts), except the hashed files under `/dashboard/assets/`.
 */
const SPA_ROUTES = `function handler(event) {
  var uri = event.request.uri;
  if (uri === '/') return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '/dashboard' } } };
  if (uri === '/dashboard' || (uri.indexOf('/dashboard/') === 0 && uri.indexOf('/dashboard/assets/') !== 0)) event.request.uri = '/dashboard/index.html';
  return event.request;
}`;

export interface DashboardSiteProps {
  api: RestApi;
  stageName: string;
}

/**
 * The dashboard and the API on one domain (docs/architecture.md "The dashboard"): a CloudFront distribution serving
 * `/dashboard*` from a private S3 bucket (origin access control; the build deployed by `BucketDeployment`) and
 * `/api/*` from the REST API's stage (nothing cached, every viewer header but Host forwarded, so the session cookie
 * and `X-CSRF-Token` reach the handlers). No CORS anywhere: the page and the API share the origin.
 */
export class DashboardSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      // only the build is in it, rebuilt by every deploy
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const security: ResponseSecurityHeadersBehavior = {
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.SAME_ORIGIN, override: true },
      strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
    };
    const pageHeaders = new ResponseHeadersPolicy(this, 'PageHeaders', {
      comment: 'The dashboard page: strict CSP, no framing, revalidated on every load',
      securityHeadersBehavior: { ...security, contentSecurityPolicy: { contentSecurityPolicy: DASHBOARD_CSP, override: true } },
      customHeadersBehavior: { customHeaders: [{ header: 'Cache-Control', value: 'no-cache', override: true }] },
    });
    const assetHeaders = new ResponseHeadersPolicy(this, 'AssetHeaders', {
      comment: "The dashboard's hashed files: strict CSP, cached for a year",
      securityHeadersBehavior: { ...security, contentSecurityPolicy: { contentSecurityPolicy: DASHBOARD_CSP, override: true } },
      customHeadersBehavior: { customHeaders: [{ header: 'Cache-Control', value: ASSET_CACHE_CONTROL, override: true }] },
    });
    const apiHeaders = new ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: 'The API through the dashboard domain: HTTPS only, never framed, no CORS',
      securityHeadersBehavior: security,
    });

    const files = S3BucketOrigin.withOriginAccessControl(this.bucket);
    const routes = new EdgeFunction(this, 'SpaRoutes', {
      code: FunctionCode.fromInline(SPA_ROUTES),
      runtime: FunctionRuntime.JS_2_0,
      comment: '/ to /dashboard; a route of the dashboard to its index.html',
    });
    const page = {
      origin: files,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: pageHeaders,
      functionAssociations: [{ function: routes, eventType: FunctionEventType.VIEWER_REQUEST }],
    };
    const { region, urlSuffix } = Stack.of(this);
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'The dashboard and the API on one domain',
      httpVersion: HttpVersion.HTTP2_AND_3,
      defaultBehavior: page,
      additionalBehaviors: {
        '/api/*': {
          origin: new HttpOrigin(`${props.api.restApiId}.execute-api.${region}.${urlSuffix}`, {
            originPath: `/${props.stageName}`,
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: apiHeaders,
        },
        '/dashboard/assets/*': {
          origin: files,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          cachePolicy: CachePolicy.CACHING_OPTIMIZED,
          responseHeadersPolicy: assetHeaders,
        },
        '/dashboard*': page,
      },
    });

    new BucketDeployment(this, 'Build', {
      sources: [
        Source.asset(join(PROJECT_ROOT, 'dashboard'), {
          assetHashType: AssetHashType.OUTPUT,
          bundling: { image: DockerImage.fromRegistry('node:24'), local: new LocalDashboardBuild() },
        }),
      ],
      destinationBucket: this.bucket,
      // the new page is fetched at once; the hashed files never change under their names
      distribution: this.distribution,
      distributionPaths: ['/dashboard', '/dashboard/', '/dashboard/index.html'],
      memoryLimit: 512,
    });

    this.acknowledge();
    this.acknowledgeDeployment();
  }

  /** The Lambda CDK provides to copy the build into the bucket at deploy time (one per stack, a singleton). */
  private acknowledgeDeployment(): void {
    const copier = Stack.of(this).node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (!copier) throw new Error("BucketDeployment's function not found");
    const bucketArn = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    const wildcards = [
      'Action::s3:GetObject*',
      'Action::s3:GetBucket*',
      'Action::s3:List*',
      'Action::s3:DeleteObject*',
      'Action::s3:Abort*',
      'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      `Resource::<${bucketArn}.Arn>/*`,
      'Resource::*',
    ];
    Validations.of(copier).acknowledge(
      ...wildcards.map((finding) => ({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason:
          "CDK's BucketDeployment grants its copier these S3 actions on the deployment's asset and on this bucket only, " +
          'and CloudFront invalidation (which takes no resource ARN) to drop the old index.html; it runs only at deploy.',
      })),
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: "The deploy-time copier of CDK's BucketDeployment writes its logs with the basic execution role CDK gives it; it holds no data.",
      },
      {
        id: 'AwsSolutions-L1',
        reason: "The runtime of CDK's BucketDeployment copier is CDK's to choose (Python with the AWS CLI layer); it runs only during a deploy.",
      },
      {
        id: 'PCI.DSS.321-IAMNoInlinePolicy',
        reason: "CDK's BucketDeployment puts its grants on its copier's role inline; the role is used by that deploy-time function alone.",
      },
      {
        id: 'PCI.DSS.321-LambdaInsideVPC',
        reason: "The deploy-time copier of CDK's BucketDeployment reaches only S3 and CloudFront's API, and no cardholder data: a VPC adds nothing.",
      },
    );
  }

  private acknowledge(): void {
    Validations.of(this.bucket).acknowledge(
      {
        id: 'AwsSolutions-S1',
        reason:
          "The bucket holds only the dashboard's public build, every file of which is in the repository; it is read " +
          'by CloudFront alone (origin access control), and every API call the page makes is in the API stage access log.',
      },
      {
        id: 'PCI.DSS.321-S3BucketLoggingEnabled',
        reason:
          "The bucket holds only the dashboard's public build (no cardholder data, every file in the repository), " +
          'read by CloudFront alone; the API calls the page makes are logged by the API stage.',
      },
      {
        id: 'PCI.DSS.321-S3BucketReplicationEnabled',
        reason: 'The build is made again by every deploy from the repository: a replica would hold nothing that cannot be rebuilt.',
      },
      {
        id: 'PCI.DSS.321-S3DefaultEncryptionKMS',
        reason:
          'The files are public JavaScript, CSS and HTML with no secret in them; SSE-S3 keeps CloudFront origin access ' +
          'control simple, where a KMS key would need CloudFront in its key policy for no gain in confidentiality.',
      },
    );
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Merchants use the dashboard from any country; the API it calls does not restrict by geography either.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'A CloudFront web ACL must live in us-east-1 while this stack is regional; every /api request still passes ' +
          "the API stage's regional web ACL (ApiFirewall) and the API's own rate limits, and the rest is static files.",
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'The distribution serves static files and forwards /api, whose every request the API stage access log ' +
          'records with its request id; CloudFront standard logs would need an ACL-enabled bucket for no new information.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution uses the default *.cloudfront.net certificate, whose minimum protocol CloudFront fixes; a ' +
          'custom domain with its own certificate (TLSv1.2_2021) is a deployment setting to add with that domain.',
      },
    );
  }
}
