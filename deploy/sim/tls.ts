/**
 * The simulator's PKI: a throwaway CA and a serving certificate for 127.0.0.1/localhost signed by
 * it, generated at start-up with node-forge (no `openssl` binary). Clients trust the CA through the
 * kubeconfig's `certificate-authority-data`, exactly as with a real cluster.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface SimulatorCertificates {
  /** CA certificate, PEM. */
  caPem: string;
  /** Serving certificate, PEM (signed by the CA; SANs 127.0.0.1, ::1, localhost). */
  certPem: string;
  /** Serving private key, PEM (PKCS#8). */
  keyPem: string;
}

function rsaKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  // Node's native key generation is ~100x faster than forge's pure-JS RSA.
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

function serialNumber(): string {
  // Positive 128-bit serial, as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f;
  return bytes.toString('hex');
}

/** Generates a CA and a serving certificate valid from one hour ago for `validDays` days. */
export function generateCertificates(validDays = 365): SimulatorCertificates {
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + validDays * 86_400_000);

  const caKeys = rsaKeyPair();
  const caKey = forge.pki.privateKeyFromPem(caKeys.privateKeyPem);
  const ca = forge.pki.createCertificate();
  ca.publicKey = forge.pki.publicKeyFromPem(caKeys.publicKeyPem);
  ca.serialNumber = serialNumber();
  ca.validity.notBefore = notBefore;
  ca.validity.notAfter = notAfter;
  const caName = [{ name: 'commonName', value: 'sentinel-simulator-ca' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKey, forge.md.sha256.create());

  const servingKeys = rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(servingKeys.publicKeyPem);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  cert.setSubject([{ name: 'commonName', value: 'kube-apiserver' }]);
  cert.setIssuer(caName);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 7, ip: '::1' },
        { type: 2, value: 'localhost' },
        { type: 2, value: 'kubernetes.default.svc' },
      ],
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());

  return {
    caPem: forge.pki.certificateToPem(ca),
    certPem: forge.pki.certificateToPem(cert),
    keyPem: servingKeys.privateKeyPem,
  };
}
