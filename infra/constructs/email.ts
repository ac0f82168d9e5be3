import { Stack } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';

export interface OtpEmailProps {
  /** The From address of OTP e-mails (`OTP_SENDER_EMAIL`). */
  senderAddress: string;
  /**
   * Create the SES e-mail identity for the address (SES then mails a verification link to it). Turn off when the
   * address or its domain is already a verified identity in the account.
   */
  createIdentity: boolean;
  /**
   * The account is in the SES sandbox: SES then also authorizes each send against the (verified) recipient's
   * identity, so the grant covers every identity of the account and region, still only from the sender address.
   */
  sandbox: boolean;
}

/** The SES sender of OTP e-mails: its identity and a send permission limited to that From address. */
export class OtpEmail extends Construct {
  readonly senderAddress: string;
  readonly sandbox: boolean;
  private readonly identityArns: string[];

  constructor(scope: Construct, id: string, props: OtpEmailProps) {
    super(scope, id);
    const domain = props.senderAddress.split('@')[1];
    if (!domain) throw new Error(`OTP sender "${props.senderAddress}" is not an e-mail address`);
    this.senderAddress = props.senderAddress;
    this.sandbox = props.sandbox;
    const identityArn = (name: string) => Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: name });
    const address = props.createIdentity
      ? new EmailIdentity(this, 'Identity', { identity: Identity.email(props.senderAddress) }).emailIdentityArn
      : identityArn(props.senderAddress);
    // SES authorizes a send against the address identity or, when only the domain is verified, the domain identity.
    this.identityArns = props.sandbox ? [identityArn('*')] : [address, identityArn(domain)];
  }

  /** `ses:SendEmail` (SES v2) from the sender address only. */
  grantSend(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: this.identityArns,
        conditions: { StringEquals: { 'ses:FromAddress': this.senderAddress } },
      }),
    );
  }
}
