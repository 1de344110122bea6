package model

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"testing"
)

// encryptPassword encodes plain as Kafka's PasswordEncoder does with its
// defaults (PBKDF2WithHmacSHA512, AES/CBC/PKCS5Padding, 128-bit key).
func encryptPassword(t *testing.T, secret, plain string) string {
	t.Helper()
	salt, iv := []byte("0123456789abcdef"), []byte("fedcba9876543210")
	key, err := pbkdf2.Key(sha512.New, secret, salt, 4096, 16)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	n := aes.BlockSize - len(plain)%aes.BlockSize
	buf := []byte(plain)
	for range n {
		buf = append(buf, byte(n))
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,keyLength:128,salt:%s,iterations:4096,encryptedPassword:%s,passwordLength:%d,initializationVector:%s",
		b64(salt), b64(buf), len(plain), b64(iv))
}

func TestDecryptPassword(t *testing.T) {
	blob := encryptPassword(t, "encoder-secret", "hunter2")
	if !IsEncryptedPassword(blob) || IsEncryptedPassword("hunter2") {
		t.Fatal("IsEncryptedPassword")
	}
	if got, err := DecryptPassword("encoder-secret", blob); err != nil || got != "hunter2" {
		t.Fatalf("decrypt: %q %v", got, err)
	}
	if got, err := DecryptPassword("other-secret", blob); err == nil {
		t.Fatalf("a wrong secret decrypted to %q", got)
	}
}
