package migrate

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"testing"
)

// encryptLikeKafka encodes plain as Kafka's PasswordEncoder does with its
// defaults (PBKDF2WithHmacSHA512, AES/CBC/PKCS5Padding, 128-bit key, 4096
// iterations), writing passwordLength as given.
func encryptLikeKafka(t *testing.T, secret, plain string, passwordLength int) string {
	t.Helper()
	salt, iv := []byte("0123456789abcdef"), []byte("fedcba9876543210")
	key, err := pbkdf2.Key(sha512.New, secret, salt, 4096, 16)
	if err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	buf := []byte(plain)
	for range pad {
		buf = append(buf, byte(pad))
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,keyLength:128,salt:%s,iterations:4096,encryptedPassword:%s,passwordLength:%d,initializationVector:%s",
		b64(salt), b64(buf), passwordLength, b64(iv))
}

// Kafka's PasswordEncoder checks passwordLength against Java's
// String.length(): UTF-16 code units, so a character outside the Basic
// Multilingual Plane counts twice. (The real-Kafka proof is
// TestMigrateZKClusterToKRaft, whose broker config holds such a password.)
func TestDecryptPasswordCountsUTF16Units(t *testing.T) {
	const secret = "s3cret"
	plain := "pw-\U0001F511é" // 3 + 2 (a surrogate pair) + 1 units; 5 runes; 9 bytes
	for _, tc := range []struct {
		length int
		ok     bool
	}{{6, true}, {5, false}, {9, false}} {
		got, err := decryptPassword(secret, encryptLikeKafka(t, secret, plain, tc.length))
		if tc.ok && (err != nil || got != plain) {
			t.Errorf("passwordLength %d: %q, %v; want %q", tc.length, got, err, plain)
		}
		if !tc.ok && err == nil {
			t.Errorf("passwordLength %d: accepted, Kafka refuses it", tc.length)
		}
	}
	if _, err := decryptPassword("not-the-secret", encryptLikeKafka(t, secret, plain, 6)); err == nil {
		t.Error("a wrong secret was accepted")
	}
}
